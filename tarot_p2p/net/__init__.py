"""trio networking: framing, authenticated links, hub/relay, timeouts, persistence."""
