// Evaluate a token sequence with llama.cpp itself (node-llama-cpp, prebuilt CPU build) and
// write, for every position, the log of llama.cpp's full softmax over the vocabulary.
// There is no raw-logits API: controlledEvaluate() with probabilities at temperature 0
// (greedy sampler, which leaves the logits untouched) returns softmax(logits) in float32;
// its log is the logits minus one constant per position (SPEC section 8).
// Usage: node llama_logits.mjs MODEL.gguf TOKENS OUT.json
//   TOKENS: comma-separated token ids (e.g. 512,17,93) or @file holding them.
//   Env: LLAMA_KV_TYPE=F16|F32 (default F32: the KV cache is not rounded to F16).
// Output: {"n_vocab", "tokens", "logprobs": [[log p(token id | prefix) for id in 0..n_vocab-1], ...]}
// CPU only (gpu: false), one thread: on a 2-core machine the default of 4 is ~10x slower.
import { loadModule } from "./load-module.mjs";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";

const [modelPath, tokensArg, outPath] = process.argv.slice(2);
if (!modelPath || !tokensArg || !outPath) {
    console.error("usage: node llama_logits.mjs MODEL.gguf TOKENS OUT.json");
    process.exit(2);
}


const tokText = tokensArg.startsWith("@") ? fs.readFileSync(tokensArg.slice(1), "utf8") : tokensArg;
const tokens = tokText.split(/[\s,]+/).filter(Boolean).map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 0) throw new Error(`bad token id ${s}`);
    return n;
});

const { getLlama, LlamaLogLevel } = await loadModule("node-llama-cpp");
const llama = await getLlama({
    gpu: false,
    build: "never",
    logLevel: LlamaLogLevel.error,
    maxThreads: 1,
});
const model = await llama.loadModel({ modelPath: path.resolve(modelPath), gpuLayers: 0 });
const kvType = process.env.LLAMA_KV_TYPE || "F32";
const context = await model.createContext({
    contextSize: Math.max(256, tokens.length + 16),
    batchSize: Math.max(32, tokens.length),
    threads: 1,
    flashAttention: false,
    experimentalKvCacheKeyType: kvType,
    experimentalKvCacheValueType: kvType,
});
const sequence = context.getSequence();
const input = tokens.map((t) => [t, { generateNext: { probabilities: true, options: { temperature: 0 } } }]);
const results = await sequence.controlledEvaluate(input);

const nVocab = model.tokens?.vocabularySize ?? null;
let width = nVocab;
const logprobs = [];
for (let i = 0; i < tokens.length; i++) {
    const probs = results[i]?.next?.probabilities;
    if (!probs) throw new Error(`no probabilities for position ${i}`);
    if (width == null) {
        for (const id of probs.keys()) width = Math.max(width ?? 0, id + 1);
    }
    const row = new Array(width).fill(null);
    for (const [id, p] of probs) row[id] = p > 0 ? Math.log(p) : null;
    logprobs.push(row);
}
fs.writeFileSync(outPath, JSON.stringify({ n_vocab: width, tokens, kv_type: kvType, logprobs }));
await context.dispose();
await model.dispose();
await llama.dispose();
