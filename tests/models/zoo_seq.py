"""Attention and recurrent models in the shape of published MindSpore ones: mindcv's
ViT, the model zoo's LSTM sentiment net (with seq_length), the GRU seq2seq with
attention and teacher forcing, a Transformer whose inference is a beam search in a
`while` loop on tensors, and a Pix2PixHD-style encoder / U-Net with upsampling."""
from __future__ import annotations

import math

import numpy as np

import graphjit as ms
import graphjit.numpy as mnp
from graphjit import log as logger
from graphjit import nn, ops
from graphjit.common.initializer import TruncatedNormal, XavierUniform, initializer
from zoo_cnn import DropPath


# -- ViT (mindcv) --------------------------------------------------------------------------
class PatchEmbedding(nn.Cell):
    def __init__(self, image_size=16, patch_size=4, embed_dim=16, input_channels=3):
        super().__init__()
        self.num_patches = (image_size // patch_size) ** 2
        self.conv = nn.Conv2d(input_channels, embed_dim, kernel_size=patch_size,
                              stride=patch_size, has_bias=True)

    def construct(self, x):
        x = self.conv(x)
        b, c, h, w = x.shape
        x = ops.reshape(x, (b, c, h * w))
        return ops.transpose(x, (0, 2, 1))


class Attention(nn.Cell):
    def __init__(self, dim, num_heads=2, attention_dropout=0.0, dropout=0.0):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = ms.Tensor(head_dim ** -0.5)
        self.qkv = nn.Dense(dim, dim * 3)
        self.attn_drop = nn.Dropout(p=attention_dropout)
        self.out = nn.Dense(dim, dim)
        self.out_drop = nn.Dropout(p=dropout)
        self.mul = ops.Mul()
        self.reshape = ops.Reshape()
        self.transpose = ops.Transpose()
        self.unstack = ops.Unstack(axis=0)
        self.attn_matmul_v = ops.BatchMatMul()
        self.q_matmul_k = ops.BatchMatMul(transpose_b=True)
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x)
        qkv = self.reshape(qkv, (b, n, 3, self.num_heads, c // self.num_heads))
        qkv = self.transpose(qkv, (2, 0, 3, 1, 4))
        q, k, v = self.unstack(qkv)
        attn = self.q_matmul_k(q, k)
        attn = self.mul(attn, self.scale)
        attn = self.attn_drop(self.softmax(attn))
        out = self.attn_matmul_v(attn, v)
        out = self.transpose(out, (0, 2, 1, 3))
        out = self.reshape(out, (b, n, c))
        return self.out_drop(self.out(out))


class FeedForward(nn.Cell):
    def __init__(self, in_features, hidden_features, dropout=0.0):
        super().__init__()
        self.dense1 = nn.Dense(in_features, hidden_features)
        self.activation = nn.GELU()
        self.dense2 = nn.Dense(hidden_features, in_features)
        self.dropout = nn.Dropout(p=dropout)

    def construct(self, x):
        return self.dropout(self.dense2(self.activation(self.dense1(x))))


class TransformerEncoderBlock(nn.Cell):
    def __init__(self, dim, num_heads, mlp_dim, drop_path=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.attn = Attention(dim, num_heads)
        self.norm2 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.mlp = FeedForward(dim, mlp_dim)
        self.drop_path = DropPath(drop_path)

    def construct(self, x):
        x = x + self.drop_path(self.attn(self.norm1(x)))
        return x + self.drop_path(self.mlp(self.norm2(x)))


class ViT(nn.Cell):
    def __init__(self, image_size=16, patch_size=4, dim=16, depth=2, heads=2, mlp_dim=32,
                 num_classes=10, drop_path_rate=0.1):
        super().__init__()
        self.patch_embedding = PatchEmbedding(image_size, patch_size, dim)
        n = self.patch_embedding.num_patches
        self.cls_token = ms.Parameter(initializer(TruncatedNormal(0.02), (1, 1, dim)),
                                      name="cls", requires_grad=True)
        self.pos_embedding = ms.Parameter(
            ms.Tensor(dtype=ms.float32, shape=(1, n + 1, dim),
                      init=TruncatedNormal(0.02)).init_data(), name="pos_embedding")
        rates = [float(r) for r in np.linspace(0, drop_path_rate, depth)]
        self.transformer = nn.SequentialCell(
            [TransformerEncoderBlock(dim, heads, mlp_dim, r) for r in rates])
        self.norm = nn.LayerNorm((dim,), epsilon=1e-6)
        self.head = nn.Dense(dim, num_classes)
        self.tile = ops.Tile()
        self.cat = ops.Concat(axis=1)

    def construct(self, x):
        x = self.patch_embedding(x)
        cls_tokens = self.tile(self.cls_token.astype(x.dtype), (x.shape[0], 1, 1))
        x = self.cat((cls_tokens, x))
        x = x + self.pos_embedding
        x = self.norm(self.transformer(x))
        return self.head(x[:, 0])


# -- LSTM sentiment net (model zoo) --------------------------------------------------------
class SentimentNet(nn.Cell):
    def __init__(self, vocab_size=40, embed_size=8, num_hiddens=8, num_layers=2,
                 bidirectional=True, num_classes=2, batch_size=3):
        super().__init__()
        weight = np.random.default_rng(7).standard_normal((vocab_size, embed_size))
        self.embedding = nn.Embedding(vocab_size, embed_size,
                                      embedding_table=ms.Tensor(weight.astype(np.float32)))
        self.embedding.embedding_table.requires_grad = False
        self.trans = ops.Transpose()
        self.perm = (1, 0, 2)
        self.encoder = nn.LSTM(input_size=embed_size, hidden_size=num_hiddens,
                               num_layers=num_layers, has_bias=True,
                               bidirectional=bidirectional, dropout=0.0)
        self.concat = ops.Concat(1)
        self.squeeze = ops.Squeeze(axis=0)
        dirs = 2 if bidirectional else 1
        self.h = ms.Tensor(np.zeros((num_layers * dirs, batch_size, num_hiddens),
                                    np.float32))
        self.c = ms.Tensor(np.zeros((num_layers * dirs, batch_size, num_hiddens),
                                    np.float32))
        self.decoder = nn.Dense(num_hiddens * dirs * 2, num_classes)

    def construct(self, inputs, seq_length):
        embeddings = self.embedding(inputs)
        embeddings = self.trans(embeddings, self.perm)          # (T, B, E)
        output, _ = self.encoder(embeddings, (self.h, self.c), seq_length)
        last = ops.gather_elements(
            output, 0, ops.broadcast_to(ops.reshape(seq_length - 1, (1, -1, 1)),
                                        (1,) + output.shape[1:]))
        encoding = self.concat((output[0], self.squeeze(last)))
        return self.decoder(encoding)


# -- GRU seq2seq with attention (model zoo) ------------------------------------------------
class GRUEncoder(nn.Cell):
    def __init__(self, vocab, embed, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.rnn = nn.GRU(embed, hidden, bidirectional=True)
        self.fc = nn.Dense(2 * hidden, hidden)
        self.tanh = nn.Tanh()

    def construct(self, src):
        embedded = self.embedding(src)                         # (T, B, E)
        output, hidden = self.rnn(embedded)                    # (T, B, 2H), (2, B, H)
        hidden = self.tanh(self.fc(ops.concat((hidden[-2], hidden[-1]), 1)))
        return output, hidden


class GRUAttention(nn.Cell):
    def __init__(self, hidden):
        super().__init__()
        self.attn = nn.Dense(3 * hidden, hidden)
        self.v = nn.Dense(hidden, 1, has_bias=False)
        self.softmax = ops.Softmax(axis=1)

    def construct(self, hidden, encoder_outputs):
        src_len = encoder_outputs.shape[0]
        hidden = ops.tile(ops.expand_dims(hidden, 1), (1, src_len, 1))     # (B, T, H)
        encoder_outputs = ops.transpose(encoder_outputs, (1, 0, 2))       # (B, T, 2H)
        energy = ops.tanh(self.attn(ops.concat((hidden, encoder_outputs), 2)))
        return self.softmax(ops.squeeze(self.v(energy), 2))              # (B, T)


class GRUDecoder(nn.Cell):
    def __init__(self, vocab, embed, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.attention = GRUAttention(hidden)
        self.rnn = nn.GRU(embed + 2 * hidden, hidden)
        self.fc_out = nn.Dense(3 * hidden + embed, vocab)
        self.bmm = ops.BatchMatMul()

    def construct(self, inputs, hidden, encoder_outputs):
        embedded = self.embedding(ops.expand_dims(inputs, 0))          # (1, B, E)
        a = ops.expand_dims(self.attention(hidden, encoder_outputs), 1)  # (B, 1, T)
        weighted = self.bmm(a, ops.transpose(encoder_outputs, (1, 0, 2)))   # (B, 1, 2H)
        weighted = ops.transpose(weighted, (1, 0, 2))
        output, hidden = self.rnn(ops.concat((embedded, weighted), 2),
                                  ops.expand_dims(hidden, 0))
        prediction = self.fc_out(ops.concat((output[0], weighted[0], embedded[0]), 1))
        return prediction, hidden[0]


class Seq2Seq(nn.Cell):
    def __init__(self, src_vocab=20, trg_vocab=20, embed=8, hidden=8, trg_len=4):
        super().__init__()
        self.encoder = GRUEncoder(src_vocab, embed, hidden)
        self.decoder = GRUDecoder(trg_vocab, embed, hidden)
        self.trg_len = trg_len
        self.argmax = ops.Argmax(axis=1, output_type=ms.int32)

    def construct(self, src, trg, teacher_force):
        """src (S, B), trg (T, B) int32; teacher_force (T,) bool: feed the target (True)
        or the model's own best guess (False) at each step."""
        encoder_outputs, hidden = self.encoder(src)
        inputs = trg[0]
        outputs = []
        for t in range(1, self.trg_len):
            output, hidden = self.decoder(inputs, hidden, encoder_outputs)
            outputs.append(output)
            top1 = self.argmax(output)
            if teacher_force[t]:
                inputs = trg[t]
            else:
                inputs = top1
        return ops.stack(outputs, 0)                         # (T - 1, B, V)


class Seq2SeqWithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, src, trg, teacher_force):
        out = self.net(src, trg, teacher_force)
        v = out.shape[-1]
        return self.loss(ops.reshape(out, (-1, v)), ops.reshape(trg[1:], (-1,)))


# -- Transformer with beam search (model zoo shape) ----------------------------------------
def position_encoding(length, depth):
    pos = np.arange(length)[:, None]
    i = np.arange(depth)[None, :]
    angle = pos / np.power(10000, (2 * (i // 2)) / depth)
    table = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    return table.astype(np.float32)


class MultiheadAttention(nn.Cell):
    """The model zoo's attention: projections run in compute_type (to_float)."""

    def __init__(self, dim, heads, compute_type=ms.float32):
        super().__init__()
        self.heads, self.size = heads, dim // heads
        self.query_layer = nn.Dense(dim, dim, weight_init=XavierUniform()).to_float(
            compute_type)
        self.key_layer = nn.Dense(dim, dim, weight_init=XavierUniform()).to_float(compute_type)
        self.value_layer = nn.Dense(dim, dim, weight_init=XavierUniform()).to_float(
            compute_type)
        self.out_layer = nn.Dense(dim, dim, weight_init=XavierUniform()).to_float(
            compute_type)
        self.scores_mul = 1.0 / math.sqrt(float(self.size))
        self.matmul_trans_b = ops.BatchMatMul(transpose_b=True)
        self.matmul = ops.BatchMatMul()
        self.softmax = nn.Softmax()
        self.cast = ops.Cast()

    def split(self, x):
        b, n, _ = x.shape
        return ops.transpose(ops.reshape(x, (b, n, self.heads, self.size)), (0, 2, 1, 3))

    def construct(self, from_tensor, to_tensor, mask):
        q = self.split(self.cast(self.query_layer(from_tensor), ms.float32))
        k = self.split(self.cast(self.key_layer(to_tensor), ms.float32))
        v = self.split(self.cast(self.value_layer(to_tensor), ms.float32))
        scores = self.matmul_trans_b(q, k) * self.scores_mul
        scores = scores + (1.0 - ops.expand_dims(mask, 1)) * -10000.0
        ctx = self.matmul(self.softmax(scores), v)
        b, _, n, _ = ctx.shape
        ctx = ops.reshape(ops.transpose(ctx, (0, 2, 1, 3)), (b, n, self.heads * self.size))
        return self.cast(self.out_layer(ctx), ms.float32)


class DecoderLayer(nn.Cell):
    def __init__(self, dim, heads, ffn, compute_type):
        super().__init__()
        self.self_attn = MultiheadAttention(dim, heads, compute_type)
        self.cross_attn = MultiheadAttention(dim, heads, compute_type)
        self.norm1 = nn.LayerNorm((dim,))
        self.norm2 = nn.LayerNorm((dim,))
        self.norm3 = nn.LayerNorm((dim,))
        self.ffn = nn.SequentialCell([nn.Dense(dim, ffn, activation="relu"),
                                      nn.Dense(ffn, dim)])

    def construct(self, x, memory, self_mask, memory_mask):
        x = x + self.self_attn(self.norm1(x), self.norm1(x), self_mask)
        x = x + self.cross_attn(self.norm2(x), memory, memory_mask)
        return x + self.ffn(self.norm3(x))


class TinyTransformer(nn.Cell):
    def __init__(self, vocab=12, dim=16, heads=2, ffn=32, max_len=6,
                 compute_type=ms.float16):
        super().__init__()
        self.dim, self.vocab, self.max_len = dim, vocab, max_len
        self.embedding = nn.Embedding(vocab, dim, embedding_table=TruncatedNormal(0.3))
        self.pos = ms.Tensor(position_encoding(16, dim))
        self.enc_attn = MultiheadAttention(dim, heads, compute_type)
        self.enc_norm = nn.LayerNorm((dim,))
        self.decoder = DecoderLayer(dim, heads, ffn, compute_type)
        self.final_norm = nn.LayerNorm((dim,))
        self.project = nn.Dense(dim, vocab)

    def embed(self, ids):
        n = ids.shape[1]
        return self.embedding(ids) * math.sqrt(self.dim) + self.pos[:n]

    def encode(self, src):
        x = self.embed(src)
        mask = ops.cast(ops.expand_dims(src > 0, 1), ms.float32)
        mask = ops.tile(mask, (1, src.shape[1], 1))
        return self.enc_norm(x + self.enc_attn(x, x, mask)), ops.cast(src > 0, ms.float32)

    def decode(self, tgt, memory, src_valid, valid_len):
        """logits for every position of tgt (B, L); positions >= valid_len are masked."""
        n = tgt.shape[1]
        causal = ms.Tensor(np.tril(np.ones((n, n), np.float32)))
        keep = ops.cast(ops.arange(n) < valid_len, ms.float32)
        self_mask = ops.expand_dims(causal * keep, 0)
        self_mask = ops.tile(self_mask, (tgt.shape[0], 1, 1))
        memory_mask = ops.tile(ops.expand_dims(src_valid, 1), (1, n, 1))
        x = self.decoder(self.embed(tgt), memory, self_mask, memory_mask)
        return self.project(self.final_norm(x))


class TransformerLoss(nn.Cell):
    """Teacher-forced training: predict tgt[:, 1:] from tgt[:, :-1]."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, src, tgt):
        memory, src_valid = self.net.encode(src)
        logits = self.net.decode(tgt[:, :-1], memory, src_valid, tgt.shape[1] - 1)
        return self.loss(ops.reshape(logits, (-1, self.net.vocab)), ops.reshape(tgt[:, 1:],
                                                                                 (-1,)))


class BeamSearch(nn.Cell):
    """Beam search over a fixed (B * beam, max_len) buffer in a `while` loop on tensors:
    each step scores every continuation, keeps the best `beam` per sentence, reorders
    the buffers and stops when every beam has produced EOS or max_len is reached."""

    def __init__(self, net, beam=3, bos=1, eos=2):
        super().__init__()
        self.net, self.beam, self.bos, self.eos = net, beam, bos, eos
        self.topk = ops.TopK(sorted=True)
        self.log_softmax = nn.LogSoftmax(axis=-1)

    def construct(self, src):
        b, beam, v, max_len = src.shape[0], self.beam, self.net.vocab, self.net.max_len
        memory, src_valid = self.net.encode(src)
        memory = ops.reshape(ops.tile(ops.expand_dims(memory, 1), (1, beam, 1, 1)),
                             (b * beam,) + memory.shape[1:])
        src_valid = ops.reshape(ops.tile(ops.expand_dims(src_valid, 1), (1, beam, 1)),
                                (b * beam, -1))
        seq = ops.fill(ms.int32, (b * beam, max_len), 0)
        seq[:, 0] = self.bos
        init_scores = np.full((1, beam), -1e9, np.float32)
        init_scores[0, 0] = 0.0
        scores = ops.tile(ms.Tensor(init_scores), (b, 1))               # (B, beam)
        finished = ops.zeros((b, beam), ms.bool_)
        positions = ops.arange(max_len)
        eos_only = ms.Tensor(np.where(np.arange(v) == self.eos, 0.0, -1e9).astype(np.float32))
        t = ms.Tensor(1, ms.int32)
        while t < max_len and not finished.all():
            logits = self.net.decode(seq, memory, src_valid, t)       # (B*beam, L, V)
            step = ops.gather(logits, t - 1, 1)                       # (B*beam, V)
            logp = ops.reshape(self.log_softmax(step), (b, beam, v))
            logp = ops.where(ops.expand_dims(finished, 2), eos_only, logp)
            cand = ops.reshape(ops.expand_dims(scores, 2) + logp, (b, beam * v))
            scores, idx = self.topk(cand, beam)
            origin = idx // v
            word = idx % v
            rows = ops.reshape(origin + ops.expand_dims(ops.arange(b) * beam, 1), (-1,))
            seq = ops.gather(seq, ops.cast(rows, ms.int32), 0)
            finished = ops.gather_elements(finished, 1, origin) | (word == self.eos)
            seq = ops.where(ops.expand_dims(positions == t, 0),
                            ops.reshape(ops.cast(word, ms.int32), (-1, 1)), seq)
            t = t + 1
        best = ops.argmax(scores, 1)
        seq = ops.reshape(seq, (b, beam, max_len))
        out = ops.gather_elements(seq, 1, ops.tile(ops.reshape(best, (b, 1, 1)),
                                                   (1, 1, max_len)))
        return ops.squeeze(out, 1), ops.amax(scores, 1), t


# -- Pix2PixHD-style encoder / U-Net -------------------------------------------------------
class ResnetBlock(nn.Cell):
    def __init__(self, dim):
        super().__init__()
        self.block = nn.SequentialCell([
            nn.Pad(((0, 0), (0, 0), (1, 1), (1, 1)), mode="REFLECT"),
            nn.Conv2d(dim, dim, 3, pad_mode="valid"), nn.InstanceNorm2d(dim), nn.ReLU(),
            nn.Pad(((0, 0), (0, 0), (1, 1), (1, 1)), mode="REFLECT"),
            nn.Conv2d(dim, dim, 3, pad_mode="valid"), nn.InstanceNorm2d(dim)])

    def construct(self, x):
        return x + self.block(x)


class UNetEncoder(nn.Cell):
    """Down twice, a residual block, up twice (a transposed convolution, then
    nn.ResizeBilinear)
    with skip connections, tanh; then Pix2PixHD's per-channel mean image, made from a
    copy of the output."""

    def __init__(self, in_ch=3, out_ch=3, ngf=4):
        super().__init__()
        self.inc = nn.SequentialCell([
            nn.Pad(((0, 0), (0, 0), (1, 1), (1, 1)), mode="REFLECT"),
            nn.Conv2d(in_ch, ngf, 3, pad_mode="valid"), nn.BatchNorm2d(ngf), nn.ReLU()])
        self.down1 = nn.SequentialCell([nn.Conv2d(ngf, 2 * ngf, 3, stride=2),
                                        nn.BatchNorm2d(2 * ngf), nn.ReLU()])
        self.down2 = nn.SequentialCell([nn.Conv2d(2 * ngf, 4 * ngf, 3, stride=2),
                                        nn.BatchNorm2d(4 * ngf), nn.ReLU()])
        self.res = ResnetBlock(4 * ngf)
        self.up1 = nn.SequentialCell([nn.Conv2dTranspose(4 * ngf, 2 * ngf, 2, stride=2),
                                      nn.BatchNorm2d(2 * ngf), nn.ReLU()])
        self.up2 = nn.Conv2d(4 * ngf, ngf, 3)
        self.resize = nn.ResizeBilinear()
        self.outc = nn.SequentialCell([nn.Conv2d(2 * ngf, out_ch, 1, has_bias=True),
                                       nn.Tanh()])

    def construct(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.res(self.down2(x2))
        y = ops.concat((self.up1(x3), x2), 1)
        y = self.resize(y, scale_factor=2)
        y = ops.relu(self.up2(y))
        outputs = self.outc(ops.concat((y, x1), 1))
        outputs_mean = outputs.copy()
        mean = ops.mean(outputs, (2, 3), keep_dims=True)
        outputs_mean = outputs_mean * 0 + mean
        logger.debug("UNetEncoder built")
        return outputs, outputs_mean


class UNetLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.l1 = nn.L1Loss()

    def construct(self, x, target):
        out, mean = self.net(x)
        return self.l1(out, target) + 0.1 * self.l1(mean, target)
