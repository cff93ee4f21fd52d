"""graphjit.dataset (a small mindspore.dataset) and Model.train over it."""
import numpy as np
import pytest

import graphjit as ms
import graphjit.dataset as ds


def test_numpy_slices_batch_and_iterators():
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.arange(5, dtype=np.int32)
    data = ds.NumpySlicesDataset((x, y), column_names=["data", "label"], shuffle=False)
    batches = list(data.batch(2).create_tuple_iterator())
    assert [tuple(b.shape for b in batch) for batch in batches] == \
        [((2, 2), (2,)), ((2, 2), (2,)), ((1, 2), (1,))]
    assert isinstance(batches[0][0], ms.Tensor)
    assert data.batch(2, drop_remainder=True).get_dataset_size() == 2
    d = next(data.create_dict_iterator(output_numpy=True))
    assert list(d) == ["data", "label"] and d["label"] == 0
    doubled = data.map(lambda v: v * 2, input_columns="data")
    assert next(doubled.create_tuple_iterator(output_numpy=True))[0].tolist() == [0.0, 2.0]


def test_generator_dataset_from_a_function_and_a_random_access_source():
    def gen():
        for i in range(4):
            yield np.full(3, i, np.float32), np.int32(i)
    rows = list(ds.GeneratorDataset(gen, ["x", "y"]).create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in rows] == [0, 1, 2, 3]

    class Source:
        def __getitem__(self, i):
            return np.float32(i), np.int32(i)

        def __len__(self):
            return 6
    ds.config.set_seed(1)
    first = [int(r[1]) for r in ds.GeneratorDataset(Source(), ["x", "y"]).create_tuple_iterator()]
    assert sorted(first) == list(range(6)) and first != list(range(6))
    ordered = ds.GeneratorDataset(Source(), ["x", "y"], shuffle=False)
    assert [int(r[1]) for r in ordered.create_tuple_iterator()] == list(range(6))
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        ordered.batch(0)


def test_model_eval_reads_a_dataset():
    net = ms.nn.Dense(2, 3)
    x = np.random.default_rng(0).standard_normal((8, 2)).astype(np.float32)
    y = (x @ net.weight.asnumpy().T + net.bias.asnumpy()).argmax(-1).astype(np.int32)
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    model = ms.Model(net, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     metrics={"acc"})
    assert model.eval(data) == {"acc": 1.0}
