"""Bounded differential fuzzing of the codec (both backends) and the transport's response
handling; ``MCPSTREAM_FUZZ_EXAMPLES`` sets the examples per test for a long run."""
