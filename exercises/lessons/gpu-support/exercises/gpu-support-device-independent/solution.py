import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.ones(2, 3).to(device)
product = x * 3  # computed on device
result = product.cpu()  # copied back to main memory

print(result.tolist())
print(product.device.type)
