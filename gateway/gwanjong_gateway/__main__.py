"""`python -m gwanjong_gateway`: the same as the `gwanjong` command."""

from gwanjong_gateway.cli.main import main

if __name__ == "__main__":
    main()
