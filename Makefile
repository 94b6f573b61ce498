# Relais — the two commands: `make run` (install + index + start) and `make test`.
.PHONY: run test install lock bench ingest

install:
	@bash scripts/install.sh

run: install
	@.venv/bin/relais run

test:
	@bash scripts/test.sh

lock:
	@bash scripts/lock.sh

ingest: install
	@.venv/bin/relais ingest

bench: install
	@bash scripts/bench.sh
