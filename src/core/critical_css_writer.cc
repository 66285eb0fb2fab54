// The CSS writer (critical_css_writer.h) and the plan's check of what it writes for a rule body.
#include "critical_css_writer.h"

#include <algorithm>

#include "critical_css_internal.h"

namespace ssr_native {
namespace critical_css {
namespace {

// Serializes the kept tree the way beasties' serializeStylesheet drives postcss.
class Writer {
 public:
  Writer(const Plan& plan, const std::vector<uint8_t>& removed,
         const std::vector<uint32_t>& selector_slot, const std::vector<std::string_view>& written,
         bool compress)
      : plan_(plan),
        text_(plan.tree.text),
        removed_(removed),
        selector_slot_(selector_slot),
        written_(written),
        compress_(compress) {}

  // RuleBody alone, for the plan's check of what it writes.
  std::string RuleBodyText(uint32_t index) {
    out_.clear();
    RuleBody(index);
    return std::move(out_);
  }

  std::string Run() {
    const CssTree& tree = plan_.tree;
    // One allocation for the kept rules instead of a dozen regrowths: the kept CSS is at most
    // about the stylesheet's size, and a page's is tens of KB, so no more than that is asked.
    out_.reserve(std::min<size_t>(text_.size(), 64 * 1024));
    Body(tree.Roots(), -1);
    const std::string_view after =
        Slice(tree.root_after_begin, static_cast<uint32_t>(text_.size()));
    if (!tree.root_after_prefix.empty()) {
      Push(tree.root_after_prefix + std::string(after));
    } else if (!after.empty()) {
      Push(after);
    }
    return std::move(out_);
  }

 private:
  std::string_view Slice(uint32_t b, uint32_t e) const {
    return std::string_view(text_).substr(b, e - b);
  }
  // One builder() call: compress trims pieces; a piece boundary list serves the ";" rule.
  void Push(std::string_view piece) {
    if (compress_) starts_.push_back(out_.size());
    if (compress_) {
      out_.append(TrimAscii(piece));
    } else {
      out_.append(piece);
    }
  }
  void PushRaw(std::string_view piece) {
    if (compress_) starts_.push_back(out_.size());
    out_.append(piece);
  }
  // One builder() call written in parts straight into the output (no piece string).
  void BeginPiece() {
    if (compress_) starts_.push_back(out_.size());
  }

  void Body(NodeList all_children, int32_t parent) {
    const bool parent_semicolon =
        parent < 0 ? plan_.tree.root_semicolon : plan_.tree.nodes[parent].semicolon;
    size_t last = all_children.size();
    for (size_t i = all_children.size(); i > 0; --i) {
      if (!removed_[all_children[i - 1]]) {
        last = i - 1;
        break;
      }
    }
    for (size_t i = 0; i < all_children.size(); ++i) {
      const uint32_t index = all_children[i];
      if (removed_[index]) continue;
      const CssNode& child = plan_.tree.nodes[index];
      const std::string_view before = Slice(child.before_begin, child.begin);
      if (!before.empty()) Push(before);
      Node(index, i != last || parent_semicolon);
    }
  }

  void Node(uint32_t index, bool semicolon) {
    const CssNode& node = plan_.tree.nodes[index];
    switch (node.kind) {
      case CssKind::kComment:
        if (!compress_) Push(Slice(node.begin, node.end));
        return;
      case CssKind::kDecl: {
        if (plan_.style_end_decl[index]) {
          last_decl_start_ = last_decl_end_ = std::string::npos;
          return;
        }
        const uint32_t text_end = node.own_semicolon ? node.end - 1 : node.end;
        BeginPiece();
        last_decl_start_ = out_.size();
        if (compress_) {
          std::string_view between = Slice(node.a_end, node.value_text_begin);
          while (!between.empty() && IsJsSpaceByte(static_cast<unsigned char>(between.back()))) {
            between.remove_suffix(1);
          }
          out_.append(Slice(node.a_begin, node.a_end));
          out_.append(between);
          out_.append(Slice(node.value_text_begin, text_end));
        } else {
          out_.append(Slice(node.begin, text_end));
        }
        if (semicolon) out_.push_back(';');
        last_decl_end_ = out_.size();
        return;
      }
      case CssKind::kRule: {
        // Rules beasties never walks (keyframe selectors) keep the selector postcss parsed.
        std::string fallback;
        if (selector_slot_[index] == 0) {
          const std::string_view raw = Slice(node.a_begin, node.a_end);
          if (compress_) {
            const std::vector<std::string_view> parts = SplitSelectorList(raw);
            for (size_t k = 0; k < parts.size(); ++k) {
              if (k > 0) fallback.push_back(',');
              fallback.append(parts[k]);
            }
          } else {
            fallback.assign(raw);
          }
        }
        const std::string_view selector = selector_slot_[index] == 0
                                              ? std::string_view(fallback)
                                              : written_[selector_slot_[index] - 1];
        if (compress_) {
          PushRaw(selector);
        } else {
          BeginPiece();
          out_.append(selector);
          if (plan_.node_flags[index] & Plan::kBodyIsSource) {
            out_.append(Slice(node.a_end, node.end));
            return;
          }
        }
        RuleBody(index);
        return;
      }
      case CssKind::kAtRule: {
        if (node.has_block) {
          Push(Slice(node.begin, node.open + 1));
          Block(index);
          return;
        }
        std::string piece(Slice(node.begin, node.own_semicolon ? node.end - 1 : node.end));
        if (semicolon) piece.push_back(';');
        Push(piece);
        return;
      }
    }
  }

  // A style rule after its selector: between and "{" (compress: the "{" piece), the block,
  // what follows the "}" up to the rule's ";".
  void RuleBody(uint32_t index) {
    const CssNode& node = plan_.tree.nodes[index];
    if (compress_) {
      PushRaw("{");
    } else {
      out_.append(Slice(node.a_end, node.open));
      out_.push_back('{');
    }
    Block(index);
    if (node.own_semicolon) Push(Slice(node.close + 1, node.end));
  }

  void Block(uint32_t index) {
    const CssNode& node = plan_.tree.nodes[index];
    Body(plan_.tree.Children(node), static_cast<int32_t>(index));
    const std::string_view after = Slice(node.after_begin, node.close);
    if (!after.empty()) Push(after);
    if (compress_ && node.semicolon) {
      int32_t last = -1;
      for (uint32_t c : plan_.tree.Children(node)) {
        if (!removed_[c]) last = static_cast<int32_t>(c);
      }
      if (last >= 0 && plan_.tree.nodes[last].kind == CssKind::kDecl && starts_.size() >= 2) {
        // beasties' writer drops the last character of the piece before the last one, meant to
        // be the last declaration's ";" (the last piece is then what follows it, maybe empty).
        // Where the last piece is the last declaration itself (nothing written between its ";"
        // and "}": `a{b:1;}`, `a{b:1;c:2;}`), that drops the "{" or an earlier ";" and the
        // browser loses the rule or a declaration; ours drops the last declaration's ";" there,
        // and writes beasties' bytes everywhere else (docs/critical-css-differences.md).
        const size_t k = starts_.size() - 2;
        const size_t b = starts_[k], e = starts_[k + 1];
        const bool last_piece_is_last_decl = starts_.back() == last_decl_start_ &&
                                             out_.size() == last_decl_end_ &&
                                             last_decl_end_ > last_decl_start_;
        if (e > b) {
          if (!last_piece_is_last_decl) {
            out_.erase(e - 1, 1);
            starts_[k + 1] = e - 1;
          } else if (out_.back() == ';') {
            out_.pop_back();
          }
        }
      }
    }
    PushRaw("}");
  }

  const Plan& plan_;
  const std::string& text_;
  const std::vector<uint8_t>& removed_;  // per node: not written
  const std::vector<uint32_t>& selector_slot_;
  const std::vector<std::string_view>& written_;
  bool compress_;
  std::string out_;
  std::vector<size_t> starts_;
  size_t last_decl_start_ = 0;  // the last declaration written: where its piece starts and ends
  size_t last_decl_end_ = 0;
};

}  // namespace

std::string WriteKeptRules(const Plan& plan, const std::vector<uint8_t>& removed,
                           const std::vector<uint32_t>& selector_slot,
                           const std::vector<std::string_view>& written, bool compress) {
  Writer writer(plan, removed, selector_slot, written, compress);
  return writer.Run();
}

// postcss's Rule#selectors setter: join with the first ",\s*" of the current selector.
std::string JoinLikePostcss(const std::vector<std::string_view>& parts, std::string_view current,
                            std::string_view between) {
  std::string sep;
  const size_t comma = current.find(',');
  if (comma != std::string_view::npos) {
    size_t e = comma + 1;
    while (e < current.size() && IsJsSpaceByte(static_cast<unsigned char>(current[e]))) ++e;
    sep.assign(current.substr(comma, e - comma));
  } else {
    sep = ",";
    sep.append(between);
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out.append(parts[i]);
  }
  return out;
}

void FlagRuleBodiesAsSource(Plan* plan) {
  const CssTree& tree = plan->tree;
  const std::vector<uint8_t> none_removed(tree.nodes.size(), 0);
  const std::vector<uint32_t> no_slots;
  const std::vector<std::string_view> no_selectors;
  Writer writer(*plan, none_removed, no_slots, no_selectors, /*compress=*/false);
  for (uint32_t i = 0; i < tree.nodes.size(); ++i) {
    const CssNode& node = tree.nodes[i];
    if (node.kind != CssKind::kRule || plan->has_nested[i]) continue;
    if (writer.RuleBodyText(i) ==
        std::string_view(tree.text).substr(node.a_end, node.end - node.a_end)) {
      plan->node_flags[i] |= Plan::kBodyIsSource;
    }
  }
}

}  // namespace critical_css
}  // namespace ssr_native
