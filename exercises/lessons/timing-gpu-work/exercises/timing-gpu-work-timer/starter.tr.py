import time

import torch

# `size` ve `repeats` zaten tanımlı: örnekte 96 ve 5
cihaz = "cpu"  # GPU varsa "cuda" seçin

torch.manual_seed(0)
a = torch.randint(-2, 3, (size, size)).float()  # sonra aygıta taşıyın


def bekle():
    pass  # eşzamanlayın, ama yalnızca GPU'da


def sure_ms(fn, repeats):
    baslangic = time.perf_counter()
    sonuc = fn()
    return [(time.perf_counter() - baslangic) * 1000], sonuc


sureler, sonuc = sure_ms(lambda: a @ a, repeats)
# aygıt türünü, süre sayısını, hepsi pozitif mi, CPU çarpımına eşit mi ve toplamı yazdırın
