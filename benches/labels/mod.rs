//! The codec benchmark's label set, shared by `benches/codec.rs` and
//! `examples/codec_loop.rs`: the 154 IDN TLD labels of the root zone plus the 19 samples of
//! RFC 3492 section 7.1.

/// Punycode strings (no prefix) of the label set.
pub fn punycode_labels() -> Vec<String> {
    let tlds = include_str!("../data/idn-tlds.txt");
    let mut labels: Vec<String> = tlds
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l["xn--".len()..].to_owned())
        .collect();
    // RFC 3492 section 7.1, samples A to S.
    labels.extend(
        [
            "egbpdaj6bu4bxfgehfvwxn",
            "ihqwcrb4cv8a8dqg056pqjye",
            "ihqwctvzc91f659drss3x8bo0yb",
            "Proprostnemluvesky-uyb24dma41a",
            "4dbcagdahymbxekheh6e0a7fei0b",
            "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd",
            "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa",
            "989aomsvi5e83db1d2a355cv1e0vak1dwrv93d5xbh15a0dt30a5jpsd879ccm6fea98c",
            "b1abfaaepdrnnbgefbaDotcwatmq2g4l",
            "PorqunopuedensimplementehablarenEspaol-fmd56a",
            "TisaohkhngthchnitingVit-kjcr8268qyxafd2f1b9g",
            "3B-ww4c5e180e575a65lsy2b",
            "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n",
            "Hello-Another-Way--fc4qua05auwb3674vfr0b",
            "2-u9tlzr9756bt3uc0v",
            "MajiKoi5-783gue6qz075azm5e",
            "de-jg4avhby1noc0d",
            "d9juau41awczczp",
            "-> $1.00 <--",
        ]
        .map(str::to_owned),
    );
    labels
}
