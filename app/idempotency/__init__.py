"""One tap acts once (SPEC R11.6): Idempotency-Key on the API, a one-time key in page forms."""
