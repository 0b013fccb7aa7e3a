"""An in-process platform that speaks the contract from memory, for the gateway's fast tier."""
