"""What every game's reference engine shares: the forward model, scripted decisions, replay of a dataset."""
