"""Exactly one write through real processes: lost answers, races, stress, a stepped clock."""
