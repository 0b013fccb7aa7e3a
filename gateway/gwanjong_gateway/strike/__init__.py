"""strike: the one place where gwanjong writes. Its rooms, their layers (an import-linter
contract in pyproject.toml) and the order one strike walks them: docs/develop/strike-chain.md.
"""
