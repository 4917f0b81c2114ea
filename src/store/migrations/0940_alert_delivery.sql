-- Alert delivery (docs/alerts.md "Delivery"): after a run, each pending alert goes to the organization's
-- webhooks and is marked with the outcome. 'no_webhooks': the organization had no active webhook when it was
-- delivered (nothing sent). 'skipped' stays for compatibility with 0922 and is not set by this build.
ALTER TABLE alerts DROP CONSTRAINT alerts_delivery_status_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_delivery_status_check
  CHECK (delivery_status IN ('pending', 'delivered', 'failed', 'no_webhooks', 'skipped'));
