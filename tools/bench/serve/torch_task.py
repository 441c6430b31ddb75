"""The training both sides of tools/bench/serve/run do for a trial: a small
PyTorch MLP fitted to a fixed regression problem, one thread, its loss per
epoch. What it costs is what a short trial costs in the training itself; the
benchmark measures what each side adds around it."""
import torch
import torch.nn.functional as F

torch.set_num_threads(1)


def train(lr, hidden, epochs, seed=0):
    g = torch.Generator().manual_seed(1234)  # the same data for every trial
    x = torch.randn(2048, 32, generator=g)
    y = x @ torch.randn(32, 1, generator=g) + 0.1 * torch.randn(2048, 1, generator=g)
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(32, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        for i in range(0, 2048, 256):
            opt.zero_grad()
            loss = F.mse_loss(model(x[i:i + 256]), y[i:i + 256])
            loss.backward()
            opt.step()
        with torch.no_grad():
            losses.append(float(F.mse_loss(model(x), y)))
    return losses
