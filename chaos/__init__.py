"""The chaos harness (`make chaos`, `python -m chaos`): the delivery guarantees under fire.

It starts a throwaway PostgreSQL cluster and redis-server of its own, an SMTP server, the SMS file
backend, gunicorn, three Celery workers and beat; fires N triggers of an email -> delay -> sms
workflow over HTTP; and meanwhile SIGKILLs workers (whole process groups and single pool
processes), flushes and restarts Redis and restarts PostgreSQL. Then it checks that nothing was
lost, stuck, logged twice or delivered twice beyond the ledger's documented crash window.
"""
