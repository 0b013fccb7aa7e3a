"""The sandbox itself: its route tables, its write faults, the Reddit emulator's wire."""
