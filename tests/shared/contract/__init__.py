"""The platform contract: the output schemas and the error shape they admit."""
