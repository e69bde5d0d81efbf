import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.tensor(xs, device=device)
y = torch.tensor(ys, device=device)
# Made on the device, so they are leaves there and backward() fills in their .grad.
w = torch.zeros((), device=device, requires_grad=True)
b = torch.zeros((), device=device, requires_grad=True)

for step in range(steps):
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    if step == 0:
        print("start loss", loss.item())
        print("start grads", w.grad.item(), b.grad.item())
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad = None
    b.grad = None

with torch.no_grad():
    loss = ((w * x + b - y) ** 2).mean()
print("final loss", loss.item())
print("w", w.item(), "b", b.item())
print(w.device.type)
