import torch

# `seed` and `scores` are defined before this code runs
device = "cuda" if torch.cuda.is_available() else "cpu"
points = torch.tensor(scores, device=device)


def draw_order(seed):
    generator = torch.Generator().manual_seed(seed)  # on the CPU: the same everywhere
    return torch.randperm(len(scores), generator=generator)


order = draw_order(seed)
half = len(scores) // 2
team_a, team_b = order[:half].to(device), order[half:].to(device)
total_a, total_b = points[team_a].sum(), points[team_b].sum()

print("order", order.tolist())
print("team a", sorted(team_a.tolist()))
print("team b", sorted(team_b.tolist()))
print("totals", total_a.item(), total_b.item())
print("same again", torch.equal(draw_order(seed), order))
print("device", total_a.device.type)
