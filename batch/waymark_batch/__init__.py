"""waymark-batch: `waymark process` over many recordings as Ray tasks (docs/BATCH.md)."""
