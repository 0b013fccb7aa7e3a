"""Team gateways on one PostgreSQL record: the shared cap and private records."""
