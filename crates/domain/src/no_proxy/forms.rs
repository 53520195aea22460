//! What a client's rendering is built from: the texts its entries become
//! ([`Forms`]) and what it says about an entry whose meaning changes
//! ([`Remark`]).

/// The texts the entries become, in order: borrowed where they are canonical
/// texts; the forms a client adds are written into one buffer (no allocation
/// per form).
pub struct Forms<'m> {
    parts: Vec<Part<'m>>,
    built: String,
}

/// One text of [`Forms`].
enum Part<'m> {
    /// A text of the entries (or a constant).
    Borrowed(&'m str),
    /// A form written into [`Forms::built`], at this range.
    Built(std::ops::Range<usize>),
}

impl<'m> Forms<'m> {
    pub(crate) fn with_capacity(parts: usize) -> Self {
        Self {
            parts: Vec::with_capacity(parts),
            built: String::new(),
        }
    }

    /// Appends `text` as it is (an entry's canonical text, or a slice of it).
    pub fn push(&mut self, text: &'m str) {
        self.parts.push(Part::Borrowed(text));
    }

    /// Appends the form `write` writes into the buffer.
    pub(crate) fn add(&mut self, write: impl FnOnce(&mut String)) {
        let start = self.built.len();
        write(&mut self.built);
        self.parts.push(Part::Built(start..self.built.len()));
    }

    /// Appends the form written as `pieces`, one after another.
    pub(crate) fn build(&mut self, pieces: &[&str]) {
        self.add(|built| pieces.iter().for_each(|piece| built.push_str(piece)));
    }

    /// How many texts there are, and how many bytes the added forms take.
    pub(crate) fn size(&self) -> (usize, usize) {
        (self.parts.len(), self.built.len())
    }

    /// The texts, in order.
    pub(crate) fn texts(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().map(|part| match part {
            Part::Borrowed(text) => text,
            Part::Built(range) => &self.built[range.clone()],
        })
    }
}

/// What happens to an entry for a client. The message ([`Remark::message`])
/// does not name the entry, so the remarks of one client group by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Remark {
    /// The client ignores ports: the entry applies to every port.
    PortsIgnored,
    /// The client does not match CIDR blocks: the block is left out.
    NoCidr,
    /// The client ignores the leading dot of `.x`: `x` bypasses too.
    LeadingDotIgnored,
    /// A remark only one client makes, with its message.
    Own(&'static str),
}

impl Remark {
    /// The warning's message for the client called `client`.
    pub fn message(self, client: &str) -> String {
        match self {
            Remark::PortsIgnored => format!("{client} ignores ports in entries; the entry applies to every port."),
            Remark::NoCidr => format!("{client} does not match CIDR blocks; the entry is left out, so addresses in it go through the proxy unless listed one by one."),
            Remark::LeadingDotIgnored => format!("{client} ignores the leading dot: the name itself also bypasses the proxy, not only the names below it."),
            Remark::Own(message) => message.to_owned(),
        }
    }
}
