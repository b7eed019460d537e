//! A static model's embedding table, held in the precision its weights file stores it.
//!
//! wordllama ships its table in f16: 16.4 MB, which widened to f32 took 32.8 MB for the life of
//! the process. Kept as it is stored, each row is widened as a text's tokens are summed, exactly
//! (every f16 and bf16 value is an f32 value), so the vectors are the ones an f32 table gives,
//! bit for bit.

use std::sync::OnceLock;

use safetensors::Dtype;

use crate::float::{f16_to_f32, floats};

/// One value per token and dimension, row-major, in the weights file's precision.
pub(crate) enum Table {
    F32(Vec<f32>),
    F16(Vec<u16>),
    BF16(Vec<u16>),
}

impl Table {
    /// The little-endian values of a tensor of `dtype`; `None` for a type that is not a float.
    pub(crate) fn new(dtype: Dtype, data: &[u8]) -> Option<Self> {
        let halves = || {
            data.chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect()
        };
        Some(match dtype {
            Dtype::F16 => Self::F16(halves()),
            Dtype::BF16 => Self::BF16(halves()),
            other => Self::F32(floats(other, data)?),
        })
    }

    /// Number of values.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::F32(values) => values.len(),
            Self::F16(values) | Self::BF16(values) => values.len(),
        }
    }

    /// Adds the `sum.len()` values from `start` to `sum`, each widened to f32.
    pub(crate) fn add_to(&self, start: usize, sum: &mut [f32]) {
        let end = start + sum.len();
        match self {
            Self::F32(values) => {
                for (total, value) in sum.iter_mut().zip(&values[start..end]) {
                    *total += value;
                }
            }
            Self::F16(values) => {
                let widened = f16_values();
                for (total, &half) in sum.iter_mut().zip(&values[start..end]) {
                    *total += widened[usize::from(half)];
                }
            }
            Self::BF16(values) => {
                for (total, &half) in sum.iter_mut().zip(&values[start..end]) {
                    *total += f32::from_bits(u32::from(half) << 16);
                }
            }
        }
    }

    /// Bytes held on the heap.
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Self::F32(values) => values.capacity() * size_of::<f32>(),
            Self::F16(values) | Self::BF16(values) => values.capacity() * size_of::<u16>(),
        }
    }
}

/// Every f16 bit pattern's f32 value (256 KB, made once): a lookup per value is cheaper than
/// decoding its exponent and mantissa, and an embedding sums thousands of them.
fn f16_values() -> &'static [f32] {
    static VALUES: OnceLock<Vec<f32>> = OnceLock::new();
    VALUES.get_or_init(|| (0..=u16::MAX).map(f16_to_f32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_widen_exactly_as_the_f32_table_would() {
        // 1.0, -2.0, 1/3 in f16; the same values as bf16; and as f32.
        let f16: Vec<u8> = [0x3c00u16, 0xc000, 0x3555]
            .iter()
            .flat_map(|h| h.to_le_bytes())
            .collect();
        let bf16: Vec<u8> = [0x3f80u16, 0xc000, 0x3eab]
            .iter()
            .flat_map(|h| h.to_le_bytes())
            .collect();
        for (dtype, data) in [(Dtype::F16, &f16), (Dtype::BF16, &bf16)] {
            let table = Table::new(dtype, data).unwrap();
            let widened = floats(dtype, data).unwrap();
            let mut sum = [0.5f32; 2];
            table.add_to(1, &mut sum);
            assert_eq!(sum, [0.5 + widened[1], 0.5 + widened[2]], "{dtype:?}");
            assert_eq!(table.len(), 3);
            assert_eq!(table.heap_bytes(), 6);
        }
        assert!(Table::new(Dtype::I32, &[0; 8]).is_none());
    }
}
