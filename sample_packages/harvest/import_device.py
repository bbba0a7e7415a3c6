"""Copy packages built on the H200 into sample_packages/harvest, deflated; the .so left out except where a
check reads it (KEEP_SO).  usage: import_device.py SRC_ROOT DEST_ROOT"""
import json, os, shutil, sys, zipfile
KEEP_SO = {"custom_op_cuda", "weightless_cuda", "test_triton_op_device_assert"}
src_root, dest_root = sys.argv[1:3]
for src in sorted(os.listdir(src_root)):
    for name in sorted(os.listdir(os.path.join(src_root, src))):
        d = os.path.join(src_root, src, name)
        if not os.path.exists(os.path.join(d, "index.json")):
            continue
        info = json.load(open(os.path.join(d, "index.json")))
        if not info.get("build_ok"):
            continue
        out = os.path.join(dest_root, src, name)
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        for f in os.listdir(d):
            p = os.path.join(d, f)
            if f.endswith(".pt2"):
                keep = name in KEEP_SO or f == "exported_program.pt2"
                with zipfile.ZipFile(p) as zi, zipfile.ZipFile(os.path.join(out, f), "w", zipfile.ZIP_DEFLATED) as zo:
                    for it in zi.infolist():
                        if it.filename.endswith(".so") and not keep:
                            info.setdefault("left_out", []).append(it.filename.rsplit("/", 1)[-1])
                            continue
                        zo.writestr(it.filename, zi.read(it.filename))
            elif os.path.isdir(p):
                shutil.copytree(p, os.path.join(out, f))
            elif f != "index.json":
                shutil.copy(p, os.path.join(out, f))
        if info.get("left_out"):
            info["left_out_why"] = "the .so (stored, ~380 KB) left out to keep the repo within the device tree's 64 MiB; nothing about its statements or logs needs it"
        info["built_on"] = "the lent H200, torch 2.11 (stop 18)"
        json.dump(info, open(os.path.join(out, "index.json"), "w"), indent=1)
        print(out, sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(out) for f in fs) // 1024, "K")
