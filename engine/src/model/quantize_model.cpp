#include "model/quantize_model.h"

#include "common/checked.h"
#include "gguf/gguf_reader.h"
#include "gguf/gguf_stream_writer.h"
#include "quant/quant_traits.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <unordered_map>
#include <vector>

namespace burrow::model {

namespace {

using gguf::ValueType;

constexpr uint32_t kQuantizationVersion = 2;   // the reference's GGML_QNT_VERSION

size_t scalarSize(ValueType t)
{
    return gguf::valueTypeSize(t);
}

// Bytes of a value's encoding after its type id (the reader validated them).
uint64_t payloadSize(const gguf::Value &v)
{
    if (v.type == ValueType::VALUE_TYPE_STRING)
        return 8 + v.str.size();
    if (v.type != ValueType::VALUE_TYPE_ARRAY)
        return scalarSize(v.type);
    uint64_t n = 4 + 8;
    if (v.arrayType == ValueType::VALUE_TYPE_STRING) {
        for (std::string_view s : v.arrayStrings)
            n += 8 + s.size();
        return n;
    }
    return n + v.arrayCount * scalarSize(v.arrayType);
}

// A head count as the reference's n_head(0) reads it: a u32, or the first
// element of a per-layer array; `out` untouched when the key is absent.
Status firstLayerCount(const gguf::GgufFile &f, const std::string &key, uint32_t &out)
{
    const gguf::KeyValue *kv = f.find(key);
    if (!kv)
        return {};
    if (kv->value.type != ValueType::VALUE_TYPE_ARRAY)
        return f.getU32(key, out);
    std::vector<int32_t> values;
    if (Status s = f.getI32Array(key, values); !s)
        return s;
    out = values.empty() || values[0] < 0 ? 0 : static_cast<uint32_t>(values[0]);
    return {};
}

struct PlannedTensor {
    const gguf::TensorInfo *in = nullptr;
    GgmlType to = GgmlType::GGML_TYPE_F32;
    bool convert = false;
    uint64_t bytesOut = 0;
};

// Converts rows [r0, r1) of `in` to `to` into `out` (the whole output tensor).
void convertRows(const gguf::TensorInfo &in, const quant::TypeTraits *src, const quant::TypeTraits *dst,
                 size_t inRowBytes, size_t outRowBytes, int64_t r0, int64_t r1, uint8_t *out)
{
    const int64_t ne0 = in.ne[0];
    constexpr int64_t kChunkRows = 16;
    std::vector<float> f32(static_cast<size_t>(ne0 * kChunkRows));
    for (int64_t r = r0; r < r1; r += kChunkRows) {
        const int64_t rows = std::min(kChunkRows, r1 - r);
        for (int64_t k = 0; k < rows; ++k) {
            const uint8_t *row = in.data + static_cast<size_t>(r + k) * inRowBytes;
            float *dstRow = f32.data() + k * ne0;
            if (in.type == GgmlType::GGML_TYPE_F32)
                std::memcpy(dstRow, row, static_cast<size_t>(ne0) * sizeof(float));
            else
                src->dequantize(row, dstRow, ne0);
        }
        for (int64_t k = 0; k < rows; ++k)
            dst->quantize(f32.data() + k * ne0, out + static_cast<size_t>(r + k) * outRowBytes, ne0);
    }
}

} // namespace

Result<QuantizeSummary> quantizeModelFile(const std::string &inPath, const std::string &outPath,
                                          const QuantFileType &fileType, const QuantizeOptions &options)
{
    auto opened = gguf::GgufFile::open(inPath);
    if (!opened)
        return opened.status();
    const gguf::GgufFile &f = *opened.value();

    std::string arch;
    if (Status s = f.getString("general.architecture", arch); !s)
        return s.withContext(inPath);
    uint32_t nLayer = 0;
    if (Status s = f.getU32(arch + ".block_count", nLayer); !s)
        return s.withContext(inPath);
    if (nLayer > 1u << 20)
        return Status::error(inPath + ": " + arch + ".block_count is " + std::to_string(nLayer) +
                             ", expected at most 1048576");

    // Output order and the mix's counts.
    std::unordered_map<std::string, const gguf::TensorInfo *> byName;
    std::vector<std::string> names;
    int nAttentionV = 0;
    bool hasOutput = false;
    for (const gguf::TensorInfo &t : f.tensors()) {
        std::string name(t.name);
        if (name.find("attn_v.weight") != std::string::npos || name.find("attn_qkv.weight") != std::string::npos ||
            name.find("attn_kv_b.weight") != std::string::npos)
            ++nAttentionV;
        if (name == "output.weight")
            hasOutput = true;
        byName.emplace(name, &t);
        names.push_back(std::move(name));
    }
    QuantMix::sortTensorNames(names);

    QuantMixModel mixModel;
    mixModel.nLayer = static_cast<int>(nLayer);
    mixModel.nAttentionV = nAttentionV;
    mixModel.hasOutput = hasOutput;
    uint32_t nExpert = 0, nHead = 0, nHeadKv = 0;
    if (Status s = f.getOptionalU32(arch + ".expert_count", nExpert); !s)
        return s.withContext(inPath);
    if (nExpert > 4096)
        return Status::error(inPath + ": " + arch + ".expert_count is " + std::to_string(nExpert) +
                             ", expected at most 4096");
    mixModel.nExpert = static_cast<int>(nExpert);
    if (Status s = firstLayerCount(f, arch + ".attention.head_count", nHead); !s)
        return s.withContext(inPath);
    nHeadKv = nHead;
    if (Status s = firstLayerCount(f, arch + ".attention.head_count_kv", nHeadKv); !s)
        return s.withContext(inPath);
    mixModel.nGqa = nHeadKv > 0 ? static_cast<int>(std::min<uint32_t>(nHead / nHeadKv, 1u << 20)) : 0;
    mixModel.is70B = nLayer == 80 && ((arch == "llama" && nHead != nHeadKv) || arch == "qwen2");
    QuantMix mix(fileType, mixModel);
    std::vector<PlannedTensor> plan;
    plan.reserve(names.size());
    for (const std::string &name : names) {
        PlannedTensor p;
        p.in = byName.at(name);
        p.to = p.in->type;
        if (QuantMix::isQuantizable(name, p.in->nDims)) {
            auto t = mix.tensorType(name, p.in->ne[0], p.in->nDims >= 3 ? p.in->ne[2] : 1);
            if (!t)
                return t.status().withContext(inPath);
            p.to = t.value();
        }
        if (p.in->nElements == 0)
            p.to = p.in->type;   // nothing to convert
        p.convert = p.to != p.in->type;
        if (!p.convert) {
            p.bytesOut = p.in->nBytes;
        } else {
            const quant::TypeTraits *src = quant::typeTraits(p.in->type);
            const quant::TypeTraits *dst = quant::typeTraits(p.to);
            if (p.in->type != GgmlType::GGML_TYPE_F32 && (!src || !src->dequantize))
                return Status::error(inPath + ": tensor '" + name + "' has type " + ggmlTypeName(p.in->type) +
                                     ", which cannot be converted (no dequantizer)");
            if (!dst || !dst->quantize)
                return Status::error("no quantizer for type " + ggmlTypeName(p.to) + " (tensor '" + name +
                                     "' of file type " + fileType.name + ")");
            size_t rowBytes = 0;
            uint64_t total = 0;
            if (!ggmlRowBytes(p.to, p.in->ne[0], &rowBytes) ||
                !checkedMul<uint64_t>(rowBytes, static_cast<uint64_t>(p.in->nElements / p.in->ne[0]), &total))
                return Status::error(inPath + ": tensor '" + name + "': size as " + ggmlTypeName(p.to) +
                                     " overflows");
            p.bytesOut = total;
        }
        plan.push_back(p);
    }

    // Header: metadata, tensor infos with their offsets, padding.
    gguf::GgufStreamWriter out(f.alignment());   // version 3, as the reference writes
    gguf::GgufWriter &writer = out.metadata();
    for (const gguf::KeyValue &kv : f.metadata()) {
        if (kv.key == "general.quantization_version" || kv.key == "general.file_type" || kv.key == "split.no" ||
            kv.key == "split.count" || kv.key == "split.tensors.count")
            continue;
        const uint64_t start = kv.offset + 8 + kv.key.size() + 4;
        const uint64_t size = payloadSize(kv.value);
        if (start > f.fileSize() || size > f.fileSize() - start)
            return Status::error(inPath + ": metadata key '" + std::string(kv.key) + "' runs past the file");
        const uint8_t *p = f.fileData() + start;
        writer.addRaw(std::string(kv.key), static_cast<uint32_t>(kv.value.type), std::vector<uint8_t>(p, p + size));
    }
    writer.addU32("general.quantization_version", kQuantizationVersion);
    writer.addU32("general.file_type", fileType.id);
    for (const PlannedTensor &p : plan) {
        if (Status s = out.declareTensor(std::string(p.in->name), p.to,
                                         std::vector<int64_t>(p.in->ne, p.in->ne + p.in->nDims));
            !s)
            return s.withContext(outPath);
        if (out.tensorBytes(out.tensorCount() - 1) != p.bytesOut)
            return Status::error(outPath + ": tensor '" + std::string(p.in->name) + "': internal size mismatch");
    }
    if (Status s = out.begin(outPath); !s)
        return s;

    int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
    threads = std::max(1, std::min(threads, 256));
    QuantizeSummary summary;
    summary.tensors = static_cast<int>(plan.size());
    std::vector<uint8_t> buffer;
    for (size_t k = 0; k < plan.size(); ++k) {
        const PlannedTensor &p = plan[k];
        const uint8_t *data = p.in->data;
        if (p.convert) {
            const int64_t rows = p.in->nElements / p.in->ne[0];
            size_t inRowBytes = 0, outRowBytes = 0;
            if (!ggmlRowBytes(p.in->type, p.in->ne[0], &inRowBytes) || !ggmlRowBytes(p.to, p.in->ne[0], &outRowBytes))
                return Status::error(inPath + ": tensor '" + std::string(p.in->name) + "': bad row size");
            buffer.assign(static_cast<size_t>(p.bytesOut), 0);
            const quant::TypeTraits *src = quant::typeTraits(p.in->type);
            const quant::TypeTraits *dst = quant::typeTraits(p.to);
            // Rows are independent (no importance matrix): the split does not change the bytes.
            const int64_t nt = std::min<int64_t>(threads, std::max<int64_t>(1, rows / 16));
            std::vector<std::thread> workers;
            for (int64_t t = 1; t < nt; ++t)
                workers.emplace_back(convertRows, std::cref(*p.in), src, dst, inRowBytes, outRowBytes,
                                     rows * t / nt, rows * (t + 1) / nt, buffer.data());
            convertRows(*p.in, src, dst, inRowBytes, outRowBytes, 0, rows / nt, buffer.data());
            for (std::thread &w : workers)
                w.join();
            data = buffer.data();
            ++summary.converted;
        }
        if (Status s = out.writeData(data, static_cast<size_t>(p.bytesOut)); !s)
            return s;
        summary.bytesIn += p.in->nBytes;
        summary.bytesOut += p.bytesOut;
        if (options.onTensor) {
            QuantizedTensorReport r;
            r.index = static_cast<int>(k);
            r.count = summary.tensors;
            r.name = std::string(p.in->name);
            r.from = p.in->type;
            r.to = p.to;
            r.converted = p.convert;
            r.bytesIn = p.in->nBytes;
            r.bytesOut = p.bytesOut;
            options.onTensor(r);
        }
    }
    if (Status s = out.finish(); !s)
        return s;
    return summary;
}

} // namespace burrow::model
