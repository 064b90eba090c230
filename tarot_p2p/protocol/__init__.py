"""Sans-IO peer: messages, codec, signed envelopes, transcript, table state machine."""
