//! Number writers for ports, octets and prefix lengths, without the
//! formatting machinery (they run per destination or per entry).

use std::fmt;
use std::net::Ipv4Addr;

/// Writes `n` in decimal into `out` without the formatting machinery (ports
/// and octets are written per destination or per entry).
pub(crate) fn write_decimal(out: &mut impl fmt::Write, n: u16) -> fmt::Result {
    let mut digits = [0u8; 5];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    digits[at..]
        .iter()
        .try_for_each(|&digit| out.write_char(char::from(digit)))
}

/// Writes `:port` into `out` when there is a port.
pub(crate) fn write_port(out: &mut impl fmt::Write, port: Option<u16>) -> fmt::Result {
    match port {
        Some(port) => {
            out.write_char(':')?;
            write_decimal(out, port)
        }
        None => Ok(()),
    }
}

/// Writes `ip` dotted, as its `Display` does, with [`write_decimal`].
pub(crate) fn write_ipv4(out: &mut impl fmt::Write, ip: Ipv4Addr) -> fmt::Result {
    for (i, octet) in ip.octets().into_iter().enumerate() {
        if i > 0 {
            out.write_str(".")?;
        }
        write_decimal(out, u16::from(octet))?;
    }
    Ok(())
}
