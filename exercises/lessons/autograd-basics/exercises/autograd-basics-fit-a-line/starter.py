import torch

# `xs`, `ys`, `steps` and `lr` are already defined (see the task).
device = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.tensor(xs, device=device)
y = torch.tensor(ys, device=device)
w = torch.zeros((), requires_grad=True).to(device)  # works on the CPU only: why?
b = torch.zeros((), requires_grad=True).to(device)

loss = ((w * x + b - y) ** 2).mean()
print("start loss", loss.item())
# repeat `steps` times: loss, backward, update without recording, clear the gradients
