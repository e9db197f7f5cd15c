"""Could a grid's digits CNNs train together, each byte for byte its own run, and faster?

Run: ``OMP_NUM_THREADS=1 .venv/bin/python bench/batched_cnn.py [--points 8] [--steps 120]``.
The logistic model and the MLP of a grid train as one batched model
(:mod:`labeldp_core.training.batched`); the CNN, the bundled datasets' default model, trains
point by point. This bench measures, on one torch thread, the formulations a batched CNN could
take, on the digits CNN (:func:`labeldp_core.models.zoo.cnn`, batch 128, fused Adam). Times are
medians of this thread's CPU time over rounds run side by side in alternating order.

0. a step on 1 example and on 128: the cost that does not grow with the examples is all that
   training ``P`` points together could share, were each example's cost unchanged;
1. grouped convolutions: the ``P`` points' feature maps stacked along the channels and one
   ``groups=P`` convolution per layer (also what ``torch.func.vmap`` makes of a convolution),
   against each point's own convolution on the same numbers (today's channels_last layout):
   equal output and gradients (the input's past the first layer)? The time of both;
2. the convolutions as matrix products: each output pixel's patch gathered into a row
   (``index_select`` with a fixed index), then ``addmm`` alone and one slice of ``baddbmm``
   together, as the batched trainer does for a linear layer. The single run's numbers then differ
   from today's ``nn.Conv2d`` (statistically the same model, but every stored CNN result would
   be recomputed): after ``--steps`` steps (a digits point trains 480) is every point's model
   equal alone and together? The step's time: today's model, this model alone, ``P`` together;
3. ``torch.func.vmap(grad(...))`` over ``functional_call`` of the ``P`` models: one step's
   gradients equal to each point's own? Its time per point.

Building a batched CNN was worth it only if a formulation was byte-identical, at least 1.5x
faster a point at 8 together and no more than 10% slower alone than today. On 2026-11-29 (the
2-core machine shared, load 4-9) none was. Grouped: the first layer's output and weight gradient
differ. Vmap: every gradient differs, and it is 2-4x slower. Matrix products: identical after
480 steps, alone 0.81-0.93 of today's step, but 8 together only 0.93-1.5x (mostly 1.0-1.2x)
faster a point than alone and 1.03-1.7x than today, the spread following the load: a step on 1
example costs 0.7-1.1 ms of 2.7-4.2 ms on 128, so sharing it bounds the gain near 1.2-1.4x, and
the max-pools and patch gathers cost more an example on 8 x 128 examples than on 128.
"""

import argparse
import functools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.data import load_dataset
from labeldp_core.models.zoo import ChannelsLastFlatten, cnn
from labeldp_core.training.batched import _loss
from labeldp_core.training.loop import adam

BATCH = 128
LEARNING_RATE = 1e-3
CHANNELS_LAST = torch.channels_last
Step = Callable[[], None]


def digits() -> tuple[torch.Tensor, torch.Tensor]:
    """Digits' training images ``(n, 1, 8, 8)`` and labels."""
    data = load_dataset("digits")
    return torch.from_numpy(data.x_train.copy()), torch.from_numpy(data.y_train.copy()).long()


def models(seeds: range | list[int], layout: torch.memory_format) -> list[nn.Module]:
    """Each seed's CNN as its run builds it (after ``torch.manual_seed(seed)``), in ``layout``."""
    built = []
    for seed in seeds:
        torch.manual_seed(seed)
        built.append(cnn((1, 8, 8), 10).to(memory_format=layout))
    return built


def layers(model: nn.Module) -> list[nn.Module]:
    """The CNN's layers in order, its nested Sequential unpacked."""
    return [m for m in model.modules() if not isinstance(m, nn.Sequential)]


def equal(one: list[torch.Tensor], other: list[torch.Tensor]) -> bool:
    """Whether the tensors are equal pairwise, bit for bit."""
    return all(torch.equal(a, b) for a, b in zip(one, other, strict=True))


def median_ms(steps: dict, rounds: int, repeats: int) -> dict[str, float]:
    """Median CPU milliseconds of each step over ``rounds`` rounds, the order alternating.

    CPU time of this thread (one torch thread), not wall time: on a shared machine the wall
    time of a round counts the time other processes held the core.
    """
    for step in steps.values():
        step()
    times: dict[str, list[float]] = {name: [] for name in steps}
    for index in range(rounds):
        for name in list(steps)[:: 1 if index % 2 == 0 else -1]:
            started = time.thread_time()
            for _ in range(repeats):
                steps[name]()
            times[name].append((time.thread_time() - started) / repeats * 1e3)
    return {name: sorted(each)[len(each) // 2] for name, each in times.items()}


def today_step(x: torch.Tensor, y: torch.Tensor, size: int) -> Step:
    """One step of today's CNN (``nn.Conv2d``, channels_last, fused Adam) on ``size`` digits."""
    net = models([0], CHANNELS_LAST)[0]
    optimiser = adam(net, LEARNING_RATE)
    images, labels = x[:size].contiguous(memory_format=CHANNELS_LAST), y[:size]

    def step() -> None:
        optimiser.zero_grad(set_to_none=True)
        functional.cross_entropy(net(images), labels).backward()
        optimiser.step()

    return step


# --- 0. what batching could save ------------------------------------------------------------


def overhead(points: int, x: torch.Tensor, y: torch.Tensor, rounds: int) -> None:
    """Print a step on 1 example and on a batch: the part ``points`` could share at most.

    For today's model and for the matrix-product one of part 2, alone.
    """
    net = models([0], torch.contiguous_format)
    optimiser = adam(net[0], LEARNING_RATE)
    steps = {("today's", size): today_step(x, y, size) for size in (1, BATCH)} | {
        ("matrix-product", size): lambda size=size: gemm_step(
            net, optimiser, x, y, torch.arange(size).view(1, size)
        )
        for size in (1, BATCH)
    }
    times = median_ms(steps, rounds, repeats=30)
    print("0. a step on 1 example and on a batch: what sharing the first could save at most")
    for model in ("today's", "matrix-product"):
        fixed, full = times[model, 1], times[model, BATCH]
        best = full / (full - fixed + fixed / points)
        print(
            f"  {model} model: 1 example {fixed:.3f} ms, {BATCH} {full:.3f} ms; {points} points "
            f"sharing all of the first, and nothing else, would be {best:.2f}x faster a point"
        )


# --- 1. grouped convolutions ---------------------------------------------------------------


def conv_inputs(model: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """What each convolution of ``model`` receives on ``x``."""
    seen: list[torch.Tensor] = []
    hooks = [
        m.register_forward_hook(lambda _, args, __: seen.append(args[0].detach()))
        for m in layers(model)
        if isinstance(m, nn.Conv2d)
    ]
    with torch.no_grad():
        model(x)
    for hook in hooks:
        hook.remove()
    return seen


def conv_grads(
    conv: nn.Conv2d, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, go: torch.Tensor
) -> list[torch.Tensor]:
    """Output and weight, bias and input gradients of ``conv``'s operation with these numbers.

    The input's gradient only past the first layer: training never asks for the images'.
    """
    weight, bias = (t.detach().requires_grad_() for t in (weight, bias))
    x = x.detach().requires_grad_(conv.in_channels != 1)
    groups = weight.shape[0] // conv.out_channels
    out = functional.conv2d(x, weight, bias, conv.stride, conv.padding, groups=groups)
    out.backward(go)
    return [out.detach(), weight.grad, bias.grad] + ([x.grad] if x.requires_grad else [])


def grouped_layer(index: int, nets: list[nn.Module], inputs: list[torch.Tensor]) -> str:
    """One convolution layer, each point's own vs grouped: what is equal, and the times."""
    convs = [[m for m in layers(net) if isinstance(m, nn.Conv2d)][index] for net in nets]
    first = convs[0]
    draw = torch.Generator().manual_seed(index)
    shape = first(inputs[0]).shape
    gos = [torch.randn(shape, generator=draw).contiguous(memory_format=CHANNELS_LAST) for _ in nets]
    alone = [
        conv_grads(c, x, c.weight, c.bias, g) for c, x, g in zip(convs, inputs, gos, strict=True)
    ]
    cat = [
        torch.cat(ts, 1 if dim == 1 else 0).contiguous(memory_format=CHANNELS_LAST)
        for ts, dim in ((inputs, 1), ([c.weight for c in convs], 0), (gos, 1))
    ]
    bias = torch.cat([c.bias for c in convs])
    together = conv_grads(first, cat[0], cat[1], bias, cat[2])
    names = ("output", "weight grad", "bias grad", "input grad")[: len(together)]
    dims = (1, 0, 0, 1)[: len(together)]
    parts = [
        [t.chunk(len(nets), dim)[p] for t, dim in zip(together, dims, strict=True)]
        for p in range(len(nets))
    ]
    pairs = list(zip(alone, parts, strict=True))
    same = [all(torch.equal(a[k], b[k]) for a, b in pairs) for k in range(len(names))]
    found = [f"{name} {'equal' if ok else 'DIFFERS'}" for name, ok in zip(names, same, strict=True)]
    times = median_ms(
        {
            "alone": lambda: conv_grads(first, inputs[0], first.weight, first.bias, gos[0]),
            "grouped": lambda: conv_grads(first, cat[0], cat[1], bias, cat[2]),
        },
        rounds=5,
        repeats=20,
    )
    per_point = times["grouped"] / len(nets)
    return (
        f"  conv {first.in_channels}->{first.out_channels}: {', '.join(found)}; forward+backward "
        f"alone {times['alone']:.3f} ms, grouped {per_point:.3f} ms a point "
        f"({times['alone'] / per_point:.2f}x)"
    )


def grouped(points: int, x: torch.Tensor) -> None:
    """Print :func:`grouped_layer` for each convolution, on each point's batch of digits."""
    nets = models(range(points), CHANNELS_LAST)
    batches = [
        x[p * BATCH : (p + 1) * BATCH].contiguous(memory_format=CHANNELS_LAST)
        for p in range(points)
    ]
    inputs = list(
        zip(*[conv_inputs(net, b) for net, b in zip(nets, batches, strict=True)], strict=True)
    )
    print(f"1. grouped convolution (groups={points}) vs each point's own, channels_last:")
    for index, each in enumerate(inputs):
        print(grouped_layer(index, nets, list(each)))


# --- 2. convolutions as matrix products ---------------------------------------------------


@functools.cache
def patch_index(side: int, channels: int, conv: tuple[int, int, int]) -> tuple[torch.Tensor, int]:
    """Where each output pixel's patch lies in one example's NHWC numbers, and the output side.

    ``conv`` is (kernel, stride, padding). A padded position points one past the example's
    numbers, where :func:`patch_rows` puts a zero.
    """
    kernel, stride, padding = conv
    out = (side + 2 * padding - kernel) // stride + 1
    ranges = (out, out, channels, kernel, kernel)
    row, column, channel, down, right = torch.meshgrid(*map(torch.arange, ranges), indexing="ij")
    y, x = row * stride + down - padding, column * stride + right - padding
    inside = (y >= 0) & (y < side) & (x >= 0) & (x < side)
    flat = torch.where(inside, (y * side + x) * channels + channel, side * side * channels)
    return flat.flatten(), out


def patch_rows(h: torch.Tensor, conv: nn.Conv2d) -> tuple[torch.Tensor, int]:
    """NHWC ``(n, H, H, C)`` to one row a patch ``(n * Ho * Ho, C * k * k)``, and ``Ho``.

    The row's order (channel, kernel row, kernel column) is the weight's ``(out, C, k, k)``.
    """
    n, side, _, channels = h.shape
    shape = (conv.kernel_size[0], conv.stride[0], conv.padding[0])
    index, out = patch_index(side, channels, shape)
    flat = h.reshape(n, -1)
    if conv.padding[0]:
        flat = torch.cat([flat, flat.new_zeros(n, 1)], 1)
    return flat.index_select(1, index).view(n * out * out, -1), out


def walk(nets: list[nn.Module], h: torch.Tensor) -> torch.Tensor:
    """``P`` CNNs on their NHWC batches ``(P * b, 8, 8, 1)``, every product a matrix product.

    One net: ``addmm`` (as ``nn.Linear``); more: one ``baddbmm``, each net's product a slice.
    """
    each = [layers(net) for net in nets]
    for index, layer in enumerate(each[0]):
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            rows, side = patch_rows(h, layer) if isinstance(layer, nn.Conv2d) else (h, 0)
            weights = [net[index].weight.flatten(1) for net in each]
            if len(nets) == 1:
                out = functional.linear(rows, weights[0], each[0][index].bias)
            else:
                bias = torch.stack([net[index].bias for net in each]).unsqueeze(1)
                stacked = rows.view(len(nets), -1, rows.shape[1])
                out = torch.baddbmm(bias, stacked, torch.stack(weights).transpose(1, 2))
            h = out.view(h.shape[0], side, side, -1) if side else out.flatten(0, -2)
        elif isinstance(layer, nn.MaxPool2d):
            h = functional.max_pool2d(h.permute(0, 3, 1, 2), 2, 1).permute(0, 2, 3, 1)
        elif isinstance(layer, nn.ReLU):
            h = torch.relu(h)
        else:
            assert isinstance(layer, ChannelsLastFlatten)
            h = h.flatten(1)
    return h.view(len(nets), -1, h.shape[-1])


def gemm_step(
    nets: list[nn.Module],
    optimiser: torch.optim.Optimizer,
    x: torch.Tensor,
    y: torch.Tensor,
    batch: torch.Tensor,
) -> None:
    """One Adam step of ``nets`` on their batches ``(P, b)`` of ``x``, each alone or together."""
    optimiser.zero_grad(set_to_none=True)
    logits = walk(nets, x.index_select(0, batch.flatten()).permute(0, 2, 3, 1))
    if len(nets) == 1:
        functional.cross_entropy(logits[0], y[batch[0]]).backward()
    else:
        _loss(logits, y[batch]).backward()
    optimiser.step()


def trained(seeds: list[int], steps: int, x: torch.Tensor, y: torch.Tensor) -> list[nn.Module]:
    """The matrix-product CNNs of ``seeds`` after ``steps`` steps, trained together."""
    nets = models(seeds, torch.contiguous_format)
    optimiser = adam(nn.ModuleList(nets), LEARNING_RATE)
    shufflers = [torch.Generator().manual_seed(seed) for seed in seeds]
    starts = range(0, len(x), BATCH)
    for step in range(steps):
        start = starts[step % len(starts)]
        if start == 0:
            orders = torch.stack([torch.randperm(len(x), generator=s) for s in shufflers])
        gemm_step(nets, optimiser, x, y, orders[:, start : start + BATCH])
    return nets


def gemm(points: int, steps: int, x: torch.Tensor, y: torch.Tensor, rounds: int) -> None:
    """Print whether each point trains the same alone and together, and the steps' times."""
    together = trained(list(range(points)), steps, x, y)
    differ = [
        p
        for p in range(points)
        if not equal(
            list(trained([p], steps, x, y)[0].parameters()), list(together[p].parameters())
        )
    ]
    print(f"2. convolutions as matrix products, {points} points x {steps} steps:")
    print(f"  points whose trained parameters differ alone vs together: {differ or 'none'}")
    batches = torch.arange(points * BATCH).view(points, BATCH)
    alone, many = (
        models([0], torch.contiguous_format),
        models(range(points), torch.contiguous_format),
    )
    alone_adam, many_adam = adam(alone[0], LEARNING_RATE), adam(nn.ModuleList(many), LEARNING_RATE)
    times = median_ms(
        {
            "today": today_step(x, y, BATCH),
            "alone": lambda: gemm_step(alone, alone_adam, x, y, batches[:1]),
            "together": lambda: gemm_step(many, many_adam, x, y, batches),
        },
        rounds,
        repeats=30,
    )
    per_point = times["together"] / points
    print(
        f"  a step: today's nn.Conv2d {times['today']:.3f} ms, matrix products alone "
        f"{times['alone']:.3f} ms ({times['alone'] / times['today']:.2f} of today's), {points} "
        f"together {times['together']:.3f} ms = {per_point:.3f} ms a point: "
        f"{times['alone'] / per_point:.2f}x alone's, {times['today'] / per_point:.2f}x today's"
    )


# --- 3. torch.func.vmap ---------------------------------------------------------------------


def vmapped(points: int, x: torch.Tensor, y: torch.Tensor, rounds: int) -> None:
    """Print whether vmap's gradients are each point's own, and its time against today's."""
    nets = models(range(points), CHANNELS_LAST)
    params, buffers = torch.func.stack_module_state(nets)
    shape = models([0], torch.contiguous_format)[0].to("meta")
    batches = x[: points * BATCH].view(points, BATCH, 1, 8, 8)
    labels = y[: points * BATCH].view(points, BATCH)

    def loss(p: dict, b: dict, images: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        logits = torch.func.functional_call(shape, (p, b), (images,))
        return functional.cross_entropy(logits, targets)

    def together() -> dict:
        return torch.func.vmap(torch.func.grad(loss))(params, buffers, batches, labels)

    grads = together()
    differ = []
    for p, net in enumerate(nets):
        loss(
            dict(net.named_parameters()),
            {},
            batches[p].contiguous(memory_format=CHANNELS_LAST),
            labels[p],
        ).backward()
        if not all(torch.equal(q.grad, grads[name][p]) for name, q in net.named_parameters()):
            differ.append(p)

    def alone() -> None:
        nets[0].zero_grad(set_to_none=True)
        functional.cross_entropy(
            nets[0](batches[0].contiguous(memory_format=CHANNELS_LAST)), labels[0]
        ).backward()

    times = median_ms({"alone": alone, "together": together}, rounds, repeats=10)
    per_point = times["together"] / points
    print(f"3. vmap(grad(functional_call)) over {points} points, one forward and backward:")
    print(
        f"  points whose gradients differ from their own: {differ or 'none'}; alone "
        f"{times['alone']:.3f} ms, together {per_point:.3f} ms a point "
        f"({times['alone'] / per_point:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--steps", type=int, default=120, help="steps of the identity check")
    parser.add_argument("--rounds", type=int, default=5, help="timing rounds")
    args = parser.parse_args()
    torch.set_num_threads(1)
    x, y = digits()
    print(f"digits CNN, batch {BATCH}, 1 torch thread, load {os.getloadavg()[0]:.1f}", flush=True)
    overhead(args.points, x, y, args.rounds)
    grouped(args.points, x)
    gemm(args.points, args.steps, x, y, args.rounds)
    vmapped(args.points, x, y, args.rounds)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
