"""The model runner: rebuilds the derived layer from the SQL in warehouse/models/, reusing the
topology tables when their inputs did not change."""
