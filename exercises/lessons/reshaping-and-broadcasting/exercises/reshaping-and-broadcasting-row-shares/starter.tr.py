import torch

# `table` zaten tanımlı: satırlardan oluşan bir liste (göreve bakın).
cihaz = "cuda" if torch.cuda.is_available() else "cpu"

saatler = torch.tensor(table, device=cihaz)
paylar = saatler / saatler.sum(dim=1)  # her satırın toplamı 1 olmalı, ama öyle mi?

print(saatler.shape)
print("shares", paylar.tolist())
# largest, above half, column means satırlarını ve payların aygıt türünü yazdırın
