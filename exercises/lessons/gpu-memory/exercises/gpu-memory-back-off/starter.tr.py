import torch

# `data`, `start` ve `train_step` zaten tanımlı (yukarıdaki örneğe bakın)
cihaz = "cpu"  # GPU varsa "cuda" seçin
print(data.device.type)  # önce `data`'yı aygıta taşıyın

buyukluk = start
# bellek yetmeyebilir: hatayı yakalayın, büyüklüğü yarıya indirip yeniden deneyin
train_step(data[:buyukluk])

# sonra data'yı sığan büyüklükte parçalara bölün, her parça için bir adım çalıştırın,
# sonuçları aygıtta toplayın ve görevin istediği satırları yazdırın
