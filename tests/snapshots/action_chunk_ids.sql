-- bound on the client: each %(name)s reaches PostgreSQL as its literal value
-- The ids of a bulk action's next chunk: `size` of its stored run ids after its cursor, sliced
-- by PostgreSQL (the action's whole list, up to NOTIFLOW_ACTION_MAX ids, never leaves the
-- database for one chunk).
SELECT run_ids[cursor + 1 : cursor + %(size)s] FROM trigger_action WHERE id = %(id)s
