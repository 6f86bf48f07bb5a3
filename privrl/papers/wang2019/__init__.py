"""Wang and Hegde 2019: privacy-preserving Q-learning with functional noise."""
