"""Every platform server through the same wire checks: errors, schemas, rate, inbox, reads."""
