"""The model: phases, machines, workloads and what a schedule makes of them, in plain data (numpy).

It imports nothing above it: no file reader, figure or widget (docs/architecture.md)."""
