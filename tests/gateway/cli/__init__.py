"""The `gwanjong` command line: init, options, doctor, link, review, serve loop, tracing."""
