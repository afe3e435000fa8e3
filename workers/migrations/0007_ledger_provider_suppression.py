"""The send ledger records which named provider accepted a message and the id it gave it (what
its delivery status callbacks name); the suppression list that every send checks first."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('triggers', '0010_api_key_scopes'),
        ('workers', '0006_purge_deleted_batch'),
    ]

    operations = [
        migrations.CreateModel(
            name='Suppression',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('channel', models.CharField(max_length=16)),
                ('recipient', models.CharField(max_length=320)),
                ('scope', models.CharField(choices=[('all', 'All'), ('marketing', 'Marketing')], default='all', max_length=16)),
                ('reason', models.CharField(choices=[('bounced', 'Bounced'), ('complained', 'Complained'), ('unsubscribed', 'Unsubscribed'), ('manual', 'Manual')], max_length=16)),
                ('source', models.CharField(blank=True, max_length=200)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'db_table': 'suppression',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.AddField(
            model_name='sendledger',
            name='provider',
            field=models.CharField(blank=True, db_default='', max_length=50),
        ),
        migrations.AddField(
            model_name='sendledger',
            name='provider_message_id',
            field=models.CharField(blank=True, db_default='', max_length=255),
        ),
        migrations.AddIndex(
            model_name='sendledger',
            index=models.Index(condition=models.Q(('provider_message_id', ''), _negated=True), fields=['provider_message_id'], name='send_ledger_provider_msg_idx'),
        ),
        migrations.AddConstraint(
            model_name='suppression',
            constraint=models.UniqueConstraint(fields=('channel', 'recipient', 'scope'), name='suppression_once'),
        ),
    ]
