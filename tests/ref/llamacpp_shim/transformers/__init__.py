"""The two entry points of Hugging Face transformers that llama.cpp's
converter calls for a Llama checkpoint, for a machine without transformers
(Debian 12 does not package it).  tests/ref/llamacpp.py puts this folder
first on PYTHONPATH when it runs llama.cpp's own convert_hf_to_gguf.py.

- AutoConfig.from_pretrained raises: the converter then reads config.json
  as it is (its own fallback), so configs that leave keys to transformers'
  defaults are not judged this way.
- AutoTokenizer.from_pretrained gives what get_vocab_base() reads: the vocab
  with the added tokens, get_added_vocab(), added_tokens_decoder (content,
  special, normalized), and encode/decode of an added token (the converter
  round-trips the non-normalized ones).  Encoding other text is refused:
  the pre-tokenizer hash that needs it is replaced by the runner.
"""
import json
from pathlib import Path


class AutoConfig:
    @staticmethod
    def from_pretrained(path, **kwargs):
        raise RuntimeError("transformers is not installed: read config.json")


class _AddedToken:
    def __init__(self, entry):
        self.content = entry["content"]
        self.special = bool(entry.get("special", False))
        self.normalized = bool(entry.get("normalized", True))


class _Tokenizer:
    def __init__(self, path):
        tj = json.loads((Path(path) / "tokenizer.json").read_text(encoding="utf-8"))
        self.vocab = dict(tj["model"]["vocab"])
        self.added_tokens_decoder = {}
        for entry in tj.get("added_tokens", []):
            self.vocab[entry["content"]] = entry["id"]
            self.added_tokens_decoder[entry["id"]] = _AddedToken(entry)
        self._by_id = {i: t for t, i in self.vocab.items()}

    def get_vocab(self):
        return dict(self.vocab)

    def get_added_vocab(self):
        return {a.content: i for i, a in self.added_tokens_decoder.items()}

    def encode(self, text, add_special_tokens=True):
        for i, a in self.added_tokens_decoder.items():
            if a.content == text:
                return [i]
        raise NotImplementedError("this stand-in encodes added tokens only")

    def decode(self, ids):
        return "".join(self._by_id[i] for i in ids)


class AutoTokenizer:
    @staticmethod
    def from_pretrained(path, **kwargs):
        return _Tokenizer(path)
