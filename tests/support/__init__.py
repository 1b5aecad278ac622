"""What the test folders share: loopback servers (faults, Bedrock, batches, durable runs),
the Redis server the tests start, worker processes, wire helpers and the transport
parametrization. Imported as ``support.<module>`` (tests/conftest.py puts tests/ on the path)."""
