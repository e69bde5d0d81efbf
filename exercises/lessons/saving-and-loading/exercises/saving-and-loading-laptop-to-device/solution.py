import torch
from torch import nn

# `seed` and `inputs` are defined before this code runs
device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(seed)
model = nn.Linear(4, 2)  # on the CPU, as on a laptop without a GPU
torch.save(model.state_dict(), "model.pt")

restored = nn.Linear(4, 2).to(device)
state = torch.load("model.pt", map_location=device, weights_only=True)
restored.load_state_dict(state)

restored.eval()
with torch.no_grad():
    outputs = restored(torch.tensor(inputs).to(device))

print("keys", sorted(state))
print("loaded on", state["weight"].device.type)
print("same weights", torch.equal(restored.weight.cpu(), model.weight))
print("outputs", [[round(value, 4) for value in row] for row in outputs.tolist()])
print("requires grad", outputs.requires_grad)
