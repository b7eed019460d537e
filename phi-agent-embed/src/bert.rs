//! BERT's encoder, forward pass only, on the CPU in f32: token + position + segment embeddings
//! and a LayerNorm, then per layer self-attention (all heads), a residual LayerNorm, a GELU
//! feed-forward and another residual LayerNorm. The tokens of every text in a batch are stacked
//! into one matrix, so the dense layers are one matrix product per batch (no padding); attention
//! runs per text, so no text sees another's tokens.
//!
//! Matrix products go through `matrixmultiply`'s `sgemm` (packed, cache-blocked, SIMD kernels
//! picked at run time: AVX2 and FMA where the CPU has them), reached through `ndarray`'s safe
//! views because the workspace forbids `unsafe`; both are pure Rust and maintained.

use safetensors::SafeTensors;
use serde_json::Value;

/// The parts of `config.json` the forward pass needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Config {
    pub(crate) hidden: usize,
    pub(crate) heads: usize,
    pub(crate) layers: usize,
    pub(crate) intermediate: usize,
    pub(crate) positions: usize,
    pub(crate) eps: f32,
}

impl Config {
    /// Reads a Hugging Face BERT `config.json`; what the pass cannot run is refused by name.
    pub(crate) fn from_json(json: &Value) -> Result<Self, String> {
        let size = |key: &str| {
            json.get(key)
                .and_then(Value::as_u64)
                .and_then(|v| usize::try_from(v).ok())
                .filter(|v| *v > 0)
                .ok_or_else(|| format!("no positive `{key}`"))
        };
        let text = |key: &str, default: &str| {
            json.get(key)
                .and_then(Value::as_str)
                .unwrap_or(default)
                .to_string()
        };
        let act = text("hidden_act", "gelu");
        if act != "gelu" {
            return Err(format!("hidden_act `{act}` (only `gelu` is supported)"));
        }
        let positions_kind = text("position_embedding_type", "absolute");
        if positions_kind != "absolute" {
            return Err(format!(
                "position_embedding_type `{positions_kind}` (only `absolute` is supported)"
            ));
        }
        let config = Self {
            hidden: size("hidden_size")?,
            heads: size("num_attention_heads")?,
            layers: size("num_hidden_layers")?,
            intermediate: size("intermediate_size")?,
            positions: size("max_position_embeddings")?,
            eps: json
                .get("layer_norm_eps")
                .and_then(Value::as_f64)
                .unwrap_or(1e-12) as f32,
        };
        if !config.hidden.is_multiple_of(config.heads) {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                config.hidden, config.heads
            ));
        }
        Ok(config)
    }
}

/// A dense layer: `weight` is `out × in`, row-major, as PyTorch stores it.
struct Linear {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    /// Query, key and value stacked into one `3·hidden × hidden` layer: one product for all three.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    output_norm: Norm,
}

/// The weights of one model.
pub(crate) struct Bert {
    pub(crate) config: Config,
    words: Vec<f32>,
    vocab: usize,
    positions: Vec<f32>,
    /// Segment 0's row: every text here is one segment.
    segment: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Bert {
    /// Reads the weights from a safetensors file's bytes (names with or without a `bert.` prefix).
    pub(crate) fn from_safetensors(bytes: &[u8], config: Config) -> Result<Self, String> {
        let tensors = SafeTensors::deserialize(bytes)
            .map_err(|error| format!("not a safetensors file: {error}"))?;
        let prefix = if tensors
            .tensor("bert.embeddings.word_embeddings.weight")
            .is_ok()
        {
            "bert."
        } else {
            ""
        };
        let h = config.hidden;
        let get = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
            let full = format!("{prefix}{name}");
            let tensor = tensors
                .tensor(&full)
                .map_err(|_| format!("no tensor `{full}`"))?;
            if tensor.shape() != shape {
                return Err(format!(
                    "`{full}` has shape {:?}, expected {shape:?}",
                    tensor.shape()
                ));
            }
            crate::float::floats(tensor.dtype(), tensor.data()).ok_or_else(|| {
                format!(
                    "`{full}` holds {:?} values (expected f32, f16 or bf16)",
                    tensor.dtype()
                )
            })
        };
        let word_tensor = tensors
            .tensor(&format!("{prefix}embeddings.word_embeddings.weight"))
            .map_err(|_| format!("no tensor `{prefix}embeddings.word_embeddings.weight`"))?;
        let vocab = word_tensor.shape().first().copied().unwrap_or(0);
        if vocab == 0 {
            return Err("an empty word embedding table".into());
        }
        let norm = |name: &str| -> Result<Norm, String> {
            Ok(Norm {
                weight: get(&format!("{name}.weight"), &[h])?,
                bias: get(&format!("{name}.bias"), &[h])?,
            })
        };
        let linear = |name: &str, inputs: usize, outputs: usize| -> Result<Linear, String> {
            Ok(Linear {
                weight: get(&format!("{name}.weight"), &[outputs, inputs])?,
                bias: get(&format!("{name}.bias"), &[outputs])?,
                inputs,
                outputs,
            })
        };
        let mut layers = Vec::with_capacity(config.layers);
        for i in 0..config.layers {
            let at = format!("encoder.layer.{i}");
            let (q, k, v) = (
                linear(&format!("{at}.attention.self.query"), h, h)?,
                linear(&format!("{at}.attention.self.key"), h, h)?,
                linear(&format!("{at}.attention.self.value"), h, h)?,
            );
            let qkv = Linear {
                weight: [q.weight, k.weight, v.weight].concat(),
                bias: [q.bias, k.bias, v.bias].concat(),
                inputs: h,
                outputs: 3 * h,
            };
            layers.push(Layer {
                qkv,
                attention_out: linear(&format!("{at}.attention.output.dense"), h, h)?,
                attention_norm: norm(&format!("{at}.attention.output.LayerNorm"))?,
                up: linear(&format!("{at}.intermediate.dense"), h, config.intermediate)?,
                down: linear(&format!("{at}.output.dense"), config.intermediate, h)?,
                output_norm: norm(&format!("{at}.output.LayerNorm"))?,
            });
        }
        let segments = get("embeddings.token_type_embeddings.weight", &[2, h])
            .or_else(|_| get("embeddings.token_type_embeddings.weight", &[1, h]))?;
        Ok(Self {
            config,
            words: get("embeddings.word_embeddings.weight", &[vocab, h])?,
            vocab,
            positions: get(
                "embeddings.position_embeddings.weight",
                &[config.positions, h],
            )?,
            segment: segments[..h].to_vec(),
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// Rows in the word embedding table.
    pub(crate) fn vocab(&self) -> usize {
        self.vocab
    }

    /// Bytes of weights held.
    pub(crate) fn heap_bytes(&self) -> usize {
        let linear = |l: &Linear| l.weight.len() + l.bias.len();
        let layers: usize = self
            .layers
            .iter()
            .map(|l| {
                linear(&l.qkv)
                    + linear(&l.attention_out)
                    + linear(&l.up)
                    + linear(&l.down)
                    + 4 * l.attention_norm.weight.len()
            })
            .sum();
        4 * (self.words.len() + self.positions.len() + self.segment.len() + layers)
    }

    /// The mean of each text's final hidden states (every token, `[CLS]` and `[SEP]` included,
    /// as sentence-transformers' mean pooling over an all-ones mask), one `hidden` vector per
    /// text, not normalized. Every text must have between 1 and `config.positions` ids, each
    /// below [`vocab`](Self::vocab) (the caller guarantees it).
    pub(crate) fn pooled(&self, texts: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let h = self.config.hidden;
        let rows: usize = texts.iter().map(Vec::len).sum();
        if rows == 0 {
            return vec![vec![0.0; h]; texts.len()];
        }
        let mut x = vec![0f32; rows * h];
        let mut row = 0;
        for ids in texts {
            for (position, &id) in ids.iter().enumerate() {
                let out = &mut x[row * h..(row + 1) * h];
                let word = &self.words[id as usize * h..(id as usize + 1) * h];
                let place = &self.positions[position * h..(position + 1) * h];
                for (((o, w), p), s) in out.iter_mut().zip(word).zip(place).zip(&self.segment) {
                    *o = w + p + s;
                }
                row += 1;
            }
        }
        layer_norm(&mut x, &self.embedding_norm, self.config.eps);

        let mut qkv = Vec::new();
        let mut context = vec![0f32; rows * h];
        let mut projected = Vec::new();
        let mut up = Vec::new();
        let mut scores = Vec::new();
        for layer in &self.layers {
            linear(&x, rows, &layer.qkv, &mut qkv);
            let mut start = 0;
            for ids in texts {
                self.attend(&qkv, start, ids.len(), &mut context, &mut scores);
                start += ids.len();
            }
            linear(&context, rows, &layer.attention_out, &mut projected);
            add_norm(&mut x, &projected, &layer.attention_norm, self.config.eps);
            linear(&x, rows, &layer.up, &mut up);
            up.iter_mut().for_each(|v| *v = gelu(*v));
            linear(&up, rows, &layer.down, &mut projected);
            add_norm(&mut x, &projected, &layer.output_norm, self.config.eps);
        }

        let mut pooled = Vec::with_capacity(texts.len());
        let mut start = 0;
        for ids in texts {
            let mut mean = vec![0f32; h];
            for row in x[start * h..(start + ids.len()) * h].chunks_exact(h) {
                mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
            }
            let n = ids.len().max(1) as f32;
            mean.iter_mut().for_each(|m| *m /= n);
            pooled.push(mean);
            start += ids.len();
        }
        pooled
    }

    /// Self-attention of one text (rows `start..start + len` of `qkv`), every head, written
    /// into the same rows of `context`.
    fn attend(
        &self,
        qkv: &[f32],
        start: usize,
        len: usize,
        context: &mut [f32],
        scores: &mut Vec<f32>,
    ) {
        let h = self.config.hidden;
        let d = h / self.config.heads;
        let stride = 3 * h;
        let scale = 1.0 / (d as f32).sqrt();
        scores.clear();
        scores.resize(len * len, 0.0);
        let rows = &qkv[start * stride..(start + len) * stride];
        let out = &mut context[start * h..(start + len) * h];
        for head in 0..self.config.heads {
            let (q, k, v) = (head * d, h + head * d, 2 * h + head * d);
            // scores = Q_head · K_headᵀ / √d: Q_head is d columns of `rows` from q, K_headᵀ the
            // d columns from k read with rows and columns swapped.
            gemm(
                scale,
                View::new(rows, q, (len, d), (stride, 1)),
                View::new(rows, k, (d, len), (1, stride)),
                0.0,
                (scores.as_mut_slice(), 0, (len, len), (len, 1)),
            );
            for row in scores.chunks_exact_mut(len) {
                softmax(row);
            }
            // context_head = softmax(scores) · V_head, into the head's d columns of `out`.
            gemm(
                1.0,
                View::new(scores, 0, (len, len), (len, 1)),
                View::new(rows, v, (len, d), (stride, 1)),
                0.0,
                (&mut *out, head * d, (len, d), (h, 1)),
            );
        }
    }
}

/// `out = x · weightᵀ + bias`, `x` being `rows × inputs`.
fn linear(x: &[f32], rows: usize, layer: &Linear, out: &mut Vec<f32>) {
    debug_assert_eq!(x.len(), rows * layer.inputs);
    out.clear();
    out.reserve(rows * layer.outputs);
    for _ in 0..rows {
        out.extend_from_slice(&layer.bias);
    }
    // `weight` (outputs × inputs) read as its transpose: row stride 1, column stride inputs.
    gemm(
        1.0,
        View::new(x, 0, (rows, layer.inputs), (layer.inputs, 1)),
        View::new(
            &layer.weight,
            0,
            (layer.inputs, layer.outputs),
            (1, layer.inputs),
        ),
        1.0,
        (
            out.as_mut_slice(),
            0,
            (rows, layer.outputs),
            (layer.outputs, 1),
        ),
    );
}

/// A strided matrix inside a slice: from `offset`, `shape` (rows, columns), `strides` (between
/// rows, between columns).
struct View<'a> {
    data: &'a [f32],
    offset: usize,
    shape: (usize, usize),
    strides: (usize, usize),
}

impl<'a> View<'a> {
    fn new(data: &'a [f32], offset: usize, shape: (usize, usize), strides: (usize, usize)) -> Self {
        Self {
            data,
            offset,
            shape,
            strides,
        }
    }
}

/// `c = alpha · a · b + beta · c` through ndarray's safe views, which check every view against
/// its slice and hand the strides to `matrixmultiply::sgemm` as they are (no copies). The shapes
/// are the forward pass's own, so a mismatch is a bug here, not bad input: it panics with the
/// shapes named.
fn gemm(
    alpha: f32,
    a: View<'_>,
    b: View<'_>,
    beta: f32,
    c: (&mut [f32], usize, (usize, usize), (usize, usize)),
) {
    use ndarray::{ArrayView2, ArrayViewMut2, ShapeBuilder};
    fn view<'a>(v: &View<'a>) -> ArrayView2<'a, f32> {
        ArrayView2::from_shape(v.shape.strides(v.strides), &v.data[v.offset..])
            .unwrap_or_else(|error| panic!("a {:?} view: {error}", v.shape))
    }
    let (a, b) = (view(&a), view(&b));
    let (data, offset, shape, strides) = c;
    let mut c = ArrayViewMut2::from_shape(shape.strides(strides), &mut data[offset..])
        .unwrap_or_else(|error| panic!("a {shape:?} output view: {error}"));
    ndarray::linalg::general_mat_mul(alpha, &a, &b, beta, &mut c);
}

/// `x = LayerNorm(x + residual)`, row by row.
fn add_norm(x: &mut [f32], residual: &[f32], norm: &Norm, eps: f32) {
    x.iter_mut().zip(residual).for_each(|(a, b)| *a += b);
    layer_norm(x, norm, eps);
}

fn layer_norm(x: &mut [f32], norm: &Norm, eps: f32) {
    let h = norm.weight.len();
    for row in x.chunks_exact_mut(h) {
        let mean = row.iter().sum::<f32>() / h as f32;
        let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inverse = 1.0 / (variance + eps).sqrt();
        for ((v, w), b) in row.iter_mut().zip(&norm.weight).zip(&norm.bias) {
            *v = (*v - mean) * inverse * w + b;
        }
    }
}

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    row.iter_mut().for_each(|v| *v /= sum);
}

/// GELU as BERT defines it, with the error function (not the tanh approximation).
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
}

/// The error function, Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7, under f32's
/// own rounding at the values GELU sees).
fn erf(x: f32) -> f32 {
    let sign = x.signum();
    let x = f64::from(x.abs());
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp()) as f32
}

#[cfg(test)]
mod tests {
    use super::{Linear, erf, gelu, linear, softmax};

    /// A layer of `inputs × outputs` with arbitrary but fixed values, and an input of `rows`.
    fn layer(rows: usize, inputs: usize, outputs: usize) -> (Vec<f32>, Linear) {
        let value = |i: usize| ((i * 7919 % 1000) as f32 - 500.0) / 1000.0;
        let x = (0..rows * inputs).map(value).collect();
        let layer = Linear {
            weight: (0..outputs * inputs).map(|i| value(i + 13)).collect(),
            bias: (0..outputs).map(|i| value(i + 29)).collect(),
            inputs,
            outputs,
        };
        (x, layer)
    }

    /// `x · weightᵀ + bias` by the definition.
    fn naive(x: &[f32], rows: usize, layer: &Linear) -> Vec<f32> {
        let mut out = Vec::with_capacity(rows * layer.outputs);
        for r in 0..rows {
            let row = &x[r * layer.inputs..(r + 1) * layer.inputs];
            for o in 0..layer.outputs {
                let weights = &layer.weight[o * layer.inputs..(o + 1) * layer.inputs];
                let dot: f32 = row.iter().zip(weights).map(|(a, b)| a * b).sum();
                out.push(dot + layer.bias[o]);
            }
        }
        out
    }

    #[test]
    fn dense_layer_matches_the_definition() {
        let (x, layer) = layer(7, 24, 40);
        let mut out = Vec::new();
        linear(&x, 7, &layer, &mut out);
        let want = naive(&x, 7, &layer);
        assert_eq!(out.len(), want.len());
        for (a, b) in out.iter().zip(&want) {
            assert!((a - b).abs() < 1e-4, "{a} against {b}");
        }
    }

    #[test]
    fn erf_and_gelu_match_known_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
        ] {
            assert!((erf(x) - want).abs() < 3e-7, "erf({x}) = {}", erf(x));
        }
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert_eq!(gelu(0.0), 0.0);
    }

    #[test]
    fn softmax_sums_to_one_without_overflow() {
        let mut row = [1000.0, 1000.0, 0.0];
        softmax(&mut row);
        assert!((row[0] - 0.5).abs() < 1e-6 && row[2] < 1e-30);
    }
}
