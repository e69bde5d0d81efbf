import torch

# `data`, `start` ve `train_step` bu kod çalışmadan önce tanımlanır
cihaz = "cuda" if torch.cuda.is_available() else "cpu"
data = data.to(cihaz)  # en başta tek bir kopya
print(data.device.type)

buyukluk = start
while buyukluk >= 1:
    try:
        train_step(data[:buyukluk])
        break
    except torch.cuda.OutOfMemoryError:
        print(f"{buyukluk}: out of memory")
    torch.cuda.empty_cache()  # except bloğunun dışında: başarısız adım artık yok
    buyukluk //= 2

if buyukluk == 0:
    print("no batch size fits")
else:
    print(f"{buyukluk}: fits")
    parcalar = data.split(buyukluk)  # grubun tamamı, sığan parçalar hâlinde
    toplam = sum(train_step(parca) for parca in parcalar)  # aygıtta kalır
    print("steps:", len(parcalar))
    print(int(toplam.item()))  # en sonda tek bir geri kopya
