"""The attempt log (docs/design/events.md, "Events and webhooks"; issue 31). An attempt is on record
from before its POST until its outcome, whatever happens to its worker in between. Its writes
ride the dispatcher's two statements (events migration 0004):

- the claim (`notiflow_delivery_claim_v1`) writes it `started`, committed before the POST;
- the finish (`notiflow_delivery_finish_v1`) writes its outcome once the POST is over (the one
  change the append-only guard allows a row, events migration 0003), lease or no lease;
- the claim that takes a delivery after its lease expired finishes, as a failure with no answer
  (ABANDONED, for as long as it ran until then), the attempt whose worker died mid-POST, so that
  attempt counts against NOTIFLOW_WEBHOOK_MAX_ATTEMPTS like any failed one.
"""

from __future__ import annotations

# The error of an abandoned attempt, as the claim function writes it (the tests hold them equal).
ABANDONED = "no answer recorded: the worker stopped during the attempt (its lease expired)"
