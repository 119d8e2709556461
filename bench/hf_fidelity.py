"""Summary of bench/hf_fidelity.sh's validate reports: per family and overall, each table's
pairwise accuracy, median relative error and exact's regret against the best known time."""
import csv
import glob
import json
import os
import statistics
import sys

# model_type -> family (the configs' own "model_type")
FAMILY = {
    "bert": "encoder", "roberta": "encoder", "xlm-roberta": "encoder", "electra": "encoder",
    "albert": "encoder",
    "gpt2": "decoder", "llama": "decoder", "mistral": "decoder", "gemma": "decoder",
    "gemma2": "decoder", "gemma3_text": "decoder", "qwen2": "decoder", "qwen3": "decoder",
    "olmo": "decoder", "olmo2": "decoder",
    "mixtral": "moe", "olmoe": "moe", "qwen2_moe": "moe",
    "bart": "enc-dec/audio", "whisper": "enc-dec/audio", "musicgen": "enc-dec/audio",
    "vit": "vision/multimodal", "resnet": "vision/multimodal", "perceiver": "vision/multimodal",
    "paligemma": "vision/multimodal",
}


def family(path):
    try:
        return FAMILY.get(json.load(open(path)).get("model_type", ""), "other")
    except (OSError, ValueError):
        return "other"


def load(w, k):
    """model path -> its validate report under table k (1-based)."""
    res = {}
    for f in sorted(glob.glob(os.path.join(w, "t%d.*.json" % k))):
        m = json.load(open(f))["models"][0]
        res[m["model"]] = m
    return res


def reference(path):
    best = {}
    if path:
        for row in csv.DictReader(l for l in open(path) if not l.startswith("#")):
            best[row["model"]] = (float(row["best_cycles"]), row.get("source") or "reference")
    return best


def main():
    w, ref, tables = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs = [load(w, k + 1) for k in range(len(tables))]
    best = reference(ref)
    for k, run in enumerate(runs):
        for model, m in run.items():
            for s in m["strategies"]:
                if s["simulated"] > 0 and (model not in best or s["simulated"] < best[model][0]):
                    best[model] = (s["simulated"], "t%d:%s" % (k + 1, s["strategy"]))
    rows = []
    for k, run in enumerate(runs):
        for model, m in sorted(run.items()):
            ex = [s for s in m["strategies"] if s["strategy"] == "exact"][0]
            rows.append({"table": tables[k], "model": os.path.basename(model),
                         "family": family(model), "pairs": m["pairs"],
                         "pairs_correct": m["pairs_correct"],
                         "median_rel_error": m["median_rel_error"],
                         "regret": ex["simulated"] / best[model][0] - 1,
                         "best_source": best[model][1]})
    fams = sorted(set(r["family"] for r in rows)) + ["all"]
    print("%-22s %-18s %6s %9s %10s %12s %10s" % ("table", "family", "models", "pairs",
                                                   "median err", "regret<=1%", "max regret"))
    summary = []
    for t in tables:
        for f in fams:
            sel = [r for r in rows if r["table"] == t and (f == "all" or r["family"] == f)]
            if not sel:
                continue
            p = sum(r["pairs"] for r in sel)
            c = sum(r["pairs_correct"] for r in sel)
            errs = [r["median_rel_error"] for r in sel if r["median_rel_error"] is not None]
            within = sum(r["regret"] <= 0.01 for r in sel)
            s = {"table": t, "family": f, "models": len(sel), "pairs": p, "pairs_correct": c,
                 "pairwise_accuracy": c / p if p else None,
                 "median_rel_error": statistics.median(errs) if errs else None,
                 "regret_within_1pct": within, "max_regret": max(r["regret"] for r in sel)}
            summary.append(s)
            acc = "%d/%d" % (c, p) if p else "n/a"
            print("%-22s %-18s %6d %9s %9.1f%% %9d/%-2d %9.2f%%" % (
                os.path.basename(t)[:22], f, len(sel), acc, 100 * s["median_rel_error"],
                within, len(sel), 100 * s["max_regret"]))
    bad = [r for r in rows if r["regret"] > 0.01]
    for r in bad:
        print("  regret %.2f%%: %s under %s (best known: %s)" % (
            100 * r["regret"], r["model"], os.path.basename(r["table"]), r["best_source"]))
    with open(os.path.join(w, "fidelity.csv"), "w", newline="") as fp:
        wr = csv.DictWriter(fp, fieldnames=list(rows[0].keys()) if rows else ["table"])
        wr.writeheader()
        wr.writerows(rows)
    json.dump({"summary": summary, "models": rows}, open(os.path.join(w, "fidelity.json"), "w"),
              indent=1)
    with open(os.path.join(w, "reference.csv"), "w") as fp:
        fp.write("model,best_cycles,source\n")
        for model, (cyc, src) in sorted(best.items()):
            fp.write("%s,%.0f,%s\n" % (model, cyc, src))


if __name__ == "__main__":
    main()
