"""An event wait's timeout becomes leased work (common/leased_work.py; waits/work.py): the waits'
sweep nudges a timeout task per wait due (`nudged_at`), which leases it (`lease_until`,
`leased_by`). Open waits at the migration have never been nudged: the first sweep nudges those
due. The index of leased timeouts is built concurrently where it can be (event_wait grows with
the waiting runs; common/migrations_ops.py)."""

from django.db import migrations, models

from common.migrations_ops import AddIndexConcurrentlyWhereItCan


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ('waits', '0003_event_wait_trace_context'),
    ]

    operations = [
        migrations.AddField(
            model_name='eventwait',
            name='lease_until',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='eventwait',
            name='leased_by',
            field=models.CharField(blank=True, db_default='', default='', max_length=255),
        ),
        migrations.AddField(
            model_name='eventwait',
            name='nudged_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        AddIndexConcurrentlyWhereItCan(
            model_name='eventwait',
            index=models.Index(condition=models.Q(('lease_until__isnull', False), ('resolved_at__isnull', True)), fields=['lease_until'], name='event_wait_lease_idx'),
        ),
    ]
