"""Helpers shared by the test suites (servers, reply builders); no logic under test."""
