-- When the signing secret was last replaced (wall-clock time of the rotation's commit, not the service clock): a
-- rotate-secret that arrived before it overlapped that rotation and is refused (409 rotation_conflict;
-- docs/webhooks.md "Concurrent rotations").
ALTER TABLE webhooks ADD COLUMN secret_rotated_at timestamptz;
