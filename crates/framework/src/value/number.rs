//! Arbitrary-precision numbers as Terraform sends them: integers, floats or
//! decimal strings.

use std::fmt;

/// A Terraform number. Integers and exactly representable floats use native
/// forms; anything else keeps its decimal text so no precision is lost.
#[derive(Debug, Clone)]
pub enum Number {
    /// A 64-bit integer.
    Int(i64),
    /// A finite double.
    Float(f64),
    /// A decimal literal too large or too precise for the native forms.
    Decimal(String),
}

impl Number {
    /// Parses a decimal literal (`-12`, `3.5`, `1e400`); `None` if malformed.
    pub fn from_decimal(text: &str) -> Option<Number> {
        if !is_decimal_literal(text) {
            return None;
        }
        if let Ok(i) = text.parse::<i64>() {
            return Some(Number::Int(i));
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() && exact_float_text(f, text) => Some(Number::from_f64(f)),
            _ => Some(Number::Decimal(text.to_owned())),
        }
    }

    /// A double; integral values become [`Number::Int`] when they fit.
    pub fn from_f64(f: f64) -> Number {
        if f.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
            Number::Int(f as i64)
        } else {
            Number::Float(f)
        }
    }

    /// An unsigned integer, in the same canonical form as [`Number::from_decimal`].
    pub fn from_u64(u: u64) -> Number {
        i64::try_from(u).map_or_else(
            |_| Number::from_decimal(&u.to_string()).unwrap_or(Number::Decimal(u.to_string())),
            Number::Int,
        )
    }

    /// The value as i64, when it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Number::Int(i) => Some(*i),
            _ => None,
        }
    }
}

fn is_decimal_literal(text: &str) -> bool {
    let body = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(int_part)
        && frac_part.is_none_or(digits)
        && exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)))
}

/// True when `f` prints back to a literal equal to `text` numerically, i.e.
/// the decimal text had no digits beyond what a double keeps.
fn exact_float_text(f: f64, text: &str) -> bool {
    let reprinted = format!("{f:e}");
    let normalise = |s: &str| s.parse::<f64>().map(|v| format!("{v:e}"));
    normalise(text).is_ok_and(|t| t == reprinted) && significant_digits(text) <= 17
}

fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    digits.trim_start_matches('0').trim_end_matches('0').len()
}

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a == b,
            (Number::Float(a), Number::Float(b)) => a == b,
            (Number::Decimal(a), Number::Decimal(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => write!(f, "{x}"),
            Number::Decimal(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(Number::from_decimal("42"), Some(Number::Int(42)));
        assert_eq!(Number::from_decimal("-1.5"), Some(Number::Float(-1.5)));
        assert_eq!(Number::from_decimal("2.0"), Some(Number::Int(2)));
        assert_eq!(
            Number::from_decimal("123456789012345678901234567890"),
            Some(Number::Decimal("123456789012345678901234567890".into()))
        );
        assert_eq!(
            Number::from_decimal("0.1000000000000000000000000001"),
            Some(Number::Decimal("0.1000000000000000000000000001".into()))
        );
        assert_eq!(
            Number::from_decimal("1e400"),
            Some(Number::Decimal("1e400".into()))
        );
    }

    #[test]
    fn rejects_malformed_literals() {
        for bad in ["", "-", "1.", ".5", "1e", "0x10", "NaN", "inf", "1 ", "+1"] {
            assert_eq!(Number::from_decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn unsigned_integers_take_the_canonical_form() {
        // Found by the fuzzer: a u64 must decode to the same form its decimal
        // text decodes to, or a round trip changes the value.
        let u = 14_974_411_379_435_360_000u64;
        assert_eq!(
            Number::from_u64(u),
            Number::from_decimal(&u.to_string()).unwrap()
        );
        assert_eq!(
            Number::from_u64(u64::MAX),
            Number::Decimal(u64::MAX.to_string())
        );
        assert_eq!(Number::from_u64(7), Number::Int(7));
    }

    #[test]
    fn integral_floats_become_ints() {
        assert_eq!(Number::from_f64(3.0), Number::Int(3));
        assert_eq!(Number::from_f64(0.25), Number::Float(0.25));
        assert_eq!(Number::from_f64(1e19), Number::Float(1e19));
    }
}
