"""Performance benchmarks of Relais: each prints ours vs a reference measured in the same run."""
