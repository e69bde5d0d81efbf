import torch

# `seed` and `scores` are already defined (see the task)
device = "cpu"  # choose "cuda" when a GPU is available
points = torch.tensor(scores, device=device)

order = torch.arange(len(scores))  # replace with a random order drawn from `seed`
half = len(scores) // 2
team_a, team_b = order[:half], order[half:]

print("order", order.tolist())
print("team a", sorted(team_a.tolist()))
print("team b", sorted(team_b.tolist()))
# print the totals, whether a second draw gives the same order, and the device type
