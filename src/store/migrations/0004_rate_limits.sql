-- Per-key rate-limit windows (spec §8: correlation 60 requests and 5,000 assets or hosts per minute per key),
-- the table layout rate-limiter-flexible's Postgres store expects. Created here, not at run time, so the
-- application never issues DDL. Rows of expired windows are deleted by the limiter itself.
CREATE TABLE rate_limits (
  key     varchar(255) PRIMARY KEY,
  points  integer NOT NULL DEFAULT 0,
  expire  bigint
);
