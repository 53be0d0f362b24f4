// SPDX-License-Identifier: GPL-3.0-or-later
// (a gcc plugin runs inside gcc, on gcc's internals: gcc loads only plugins
// that declare themselves GPL-compatible.)
//
// sprof_access_plugin.so: the gcc plugin sprof-cc and sprof-c++ load into
// cc1 and cc1plus. gcc's ThreadSanitizer instrumentation calls a hook
// before every load and store; a call per access costs more than the rest
// of the locality collection together (the call, the caller-saved
// registers it clobbers, the program's values reloaded after it). Right
// after gcc's tsan pass, this pass replaces each call of
// __tsan_read1/2/4/8, __tsan_write1/2/4/8 and their volatile forms by the
// hooks' fast path (count_access in sprof/hot_path.hpp), inline, on the
// thread-local HotPath (initial-exec TLS, defined by libsprof_access.so and
// by the runtime). 16-byte and range accesses, atomics and vtable-pointer
// stores keep their calls.
//
// The calls of one basic block with no other call between them form a
// group: it takes its access numbers at once, and each access probes the
// filter of watched lines (inline_group below). A probe that hits, or a
// group that holds the next event, takes the access's slow branch, which
// calls the very hook it replaced with the count set to the access's
// number minus one: the hook counts the access and decides as it always
// did, so the numbering of accesses, the sample points, the watched-line
// checks, the access's kind and size are those of a build without the
// plugin, and so is its PC (the hook's return address − 1: the call in the
// slow branch, at the access's source location in the same function).
// First: gcc's headers poison parts of the C library.
#include <vector>

#include "sprof/hot_path.hpp"

// gcc's headers, in the order they need each other.
#include <gcc-plugin.h>
#include <plugin-version.h>
#include <tree.h>
#include <tree-pass.h>
#include <context.h>
#include <basic-block.h>
#include <cfgloop.h>
#include <gimple.h>
#include <gimple-iterator.h>
#include <gimple-ssa.h>
#include <ssa.h>
#include <stringpool.h>
#include <tree-into-ssa.h>
#include <tree-ssa-alias.h>
#include <cgraph.h>
#include <attribs.h>
#include <diagnostic-core.h>

int plugin_is_GPL_compatible;

namespace {

// Trees kept across functions, registered with gcc's garbage collector.
tree g_trees[4 + 16];
tree& g_hot_decl = g_trees[0];     // the thread-local HotPath
tree& g_hot_alias = g_trees[1];    // pointer to a type of its own alias set: HotPath's fields alias nothing else
tree& g_filter_type = g_trees[2];  // const unsigned char *
tree& g_hook_type = g_trees[3];    // void (const void *, HotPath *), with the hooks' side effects spelled out
tree* const g_hooks = g_trees + 4;  // the hooks, of that type, by position in kInlined

const ggc_root_tab g_roots[] = {
    {g_trees, sizeof g_trees / sizeof g_trees[0], sizeof(tree), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB};

void make_trees() {
    if (g_hot_decl) return;
    // As large and aligned as HotPath, so gcc's alias oracle sees every field inside it.
    tree type = build_array_type_nelts(uint64_type_node, sizeof(sprof::HotPath) / 8);
    tree id = get_identifier(SPROF_HOT_PATH_SYMBOL);
    tree decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, id, type);
    SET_DECL_ASSEMBLER_NAME(decl, id);
    TREE_PUBLIC(decl) = 1;
    DECL_EXTERNAL(decl) = 1;
    TREE_STATIC(decl) = 1;
    TREE_ADDRESSABLE(decl) = 1;
    TREE_USED(decl) = 1;
    DECL_ARTIFICIAL(decl) = 1;
    DECL_IGNORED_P(decl) = 1;
    set_decl_tls_model(decl, TLS_MODEL_INITIAL_EXEC);
    g_hot_decl = decl;

    // The program's own loads and stores (ints, doubles, pointers) never
    // alias HotPath: give its fields an alias set of their own, so storing
    // the count does not make gcc reload the program's values.
    tree own = build_distinct_type_copy(uint64_type_node);
    TYPE_ALIAS_SET(own) = new_alias_set();
    g_hot_alias = build_pointer_type(own);
    g_filter_type = build_pointer_type(build_qualified_type(unsigned_char_type_node, TYPE_QUAL_CONST));

    // What a hook touches, for gcc's alias oracle ("fn spec", see gcc's
    // attr-fnspec.h): nothing but what its arguments point to ('c'); the
    // access's address is not dereferenced ('R'); the HotPath, passed as a
    // second argument the hook never looks at, may be read and written
    // ('w'). So the program's values stay in registers across a slow branch
    // as they do across its fast path.
    const char spec[] = ".cR w ";
    tree attr = tree_cons(get_identifier("fn spec"), build_tree_list(NULL_TREE, build_string(6, spec)), NULL_TREE);
    g_hook_type = build_type_attribute_variant(
        build_function_type_list(void_type_node, ptr_type_node, ptr_type_node, NULL_TREE), attr);
}

// hot.FIELD as an operand, `hot` the HotPath's address.
tree hot_field(tree hot, tree type, size_t offset) {
    return build2(MEM_REF, type, hot, build_int_cst(g_hot_alias, offset));
}

// Inserts statements before an iterator (at the end of an empty block: in
// order), all at the access's location.
struct Emitter {
    gimple_stmt_iterator gsi;
    location_t where;

    void add(gimple* g) {
        gimple_set_location(g, where);
        gsi_insert_before(&gsi, g, GSI_SAME_STMT);
    }
    // lhs = a CODE b, or lhs = (type) a with code NOP_EXPR.
    tree value(tree type, tree_code code, tree a, tree b = NULL_TREE) {
        tree lhs = make_ssa_name(type);
        add(b ? gimple_build_assign(lhs, code, a, b) : gimple_build_assign(lhs, code, a));
        return lhs;
    }
    tree load(tree type, tree ref) {
        tree lhs = make_ssa_name(type);
        add(gimple_build_assign(lhs, ref));
        return lhs;
    }
    tree load(tree hot, tree type, size_t offset) { return load(type, hot_field(hot, type, offset)); }
};

// The hooks whose calls become an inline fast path.
const built_in_function kInlined[16] = {
    BUILT_IN_TSAN_READ1,          BUILT_IN_TSAN_READ2,          BUILT_IN_TSAN_READ4,
    BUILT_IN_TSAN_READ8,          BUILT_IN_TSAN_WRITE1,         BUILT_IN_TSAN_WRITE2,
    BUILT_IN_TSAN_WRITE4,         BUILT_IN_TSAN_WRITE8,         BUILT_IN_TSAN_VOLATILE_READ1,
    BUILT_IN_TSAN_VOLATILE_READ2, BUILT_IN_TSAN_VOLATILE_READ4, BUILT_IN_TSAN_VOLATILE_READ8,
    BUILT_IN_TSAN_VOLATILE_WRITE1, BUILT_IN_TSAN_VOLATILE_WRITE2, BUILT_IN_TSAN_VOLATILE_WRITE4,
    BUILT_IN_TSAN_VOLATILE_WRITE8};

// The position in kInlined of the hook g calls, or -1.
int inlined_hook(const gimple* g) {
    if (!gimple_call_builtin_p(g, BUILT_IN_NORMAL)) return -1;
    for (int i = 0; i < 16; ++i)
        if (DECL_FUNCTION_CODE(gimple_call_fndecl(g)) == kInlined[i]) return i;
    return -1;
}

// A call of the same hook (the same symbol) that tells gcc what it touches.
gcall* told_hook_call(gcall* call, tree hot) {
    tree& decl = g_hooks[inlined_hook(call)];
    if (!decl) {
        decl = build_fn_decl(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(gimple_call_fndecl(call))), g_hook_type);
        DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
    }
    gcall* told = gimple_build_call(decl, 2, gimple_call_arg(call, 0), hot);
    gimple_set_location(told, gimple_location(call));
    return told;
}

// The filter a group of accesses probes, and its mask: the HotPath's, or,
// when the group holds the next event, a byte that is never 0 (every
// access of the group then takes the slow branch, whose hook tells the
// event's access from the others).
struct Probe {
    tree filter, mask;
};

// In a slow block (the rare branch): the filter for the accesses left.
Probe group_probe(Emitter& e, tree hot, tree last, tree always) {
    using sprof::HotPath;
    tree event = e.load(hot, uint64_type_node, offsetof(HotPath, next_event));
    tree due = e.value(boolean_type_node, GE_EXPR, last, event);
    tree filter = e.load(hot, g_filter_type, offsetof(HotPath, filter));
    tree mask = e.load(hot, uint64_type_node, offsetof(HotPath, filter_mask));
    tree lhs = make_ssa_name(g_filter_type);
    e.add(gimple_build_assign(lhs, COND_EXPR, due, always, filter));
    tree masked = make_ssa_name(uint64_type_node);
    e.add(gimple_build_assign(masked, COND_EXPR, due, build_int_cst(uint64_type_node, 0), mask));
    return {lhs, masked};
}

// The statement before an iterator of bb (the last one, at its end).
gimple* last_before(gimple_stmt_iterator at, basic_block bb) {
    if (gsi_end_p(at)) return gsi_stmt(gsi_last_bb(bb));
    gsi_prev(&at);
    return gsi_stmt(at);
}

// count += delta, in memory (a signal handler's accesses in between stay counted).
void add_to_count(Emitter& e, tree hot, HOST_WIDE_INT delta) {
    if (delta == 0) return;
    tree u64 = uint64_type_node;
    tree now = e.load(hot, u64, offsetof(sprof::HotPath, count));
    e.add(gimple_build_assign(hot_field(hot, u64, offsetof(sprof::HotPath, count)),
                              e.value(u64, PLUS_EXPR, now, build_int_cst(u64, delta))));
}

// A group of accesses: the hook calls of one basic block with no other call
// between them (nothing else can count an access in between, but for a
// signal handler). The group takes its numbers at once, then probes the
// filter at each access:
//   before the first: c = count; count = c + m;
//                     filter, mask = the HotPath's, or "always" if c + m >= next_event
//   at access j:      if (filter[bucket of p's line & mask]) goto slow_j;
//   slow_j (rare):    count -= m - j + 1; the hook (it counts access j: c + j);
//                     count += m - j; filter, mask again for the accesses left
// so the hooks see every access numbered as if each had counted itself.
void inline_group(const std::vector<gcall*>& calls, tree hot) {
    using sprof::HotPath;
    tree u64 = uint64_type_node;
    const profile_probability rare = profile_probability::very_unlikely();
    const HOST_WIDE_INT m = calls.size();

    // Before the first access: the group's numbers, and its filter unless it holds the event.
    const location_t start = gimple_location(calls[0]);
    Emitter first{gsi_for_stmt(calls[0]), start};
    tree always = build_string_literal(2, "\1", unsigned_char_type_node);
    tree count = first.load(hot, u64, offsetof(HotPath, count));
    tree last = first.value(u64, PLUS_EXPR, count, build_int_cst(u64, m));
    first.add(gimple_build_assign(hot_field(hot, u64, offsetof(HotPath, count)), last));
    tree line_mask = first.load(hot, u64, offsetof(HotPath, line_mask));  // fixed while the thread runs
    tree filter = first.load(hot, g_filter_type, offsetof(HotPath, filter));
    tree mask = first.load(hot, u64, offsetof(HotPath, filter_mask));
    gimple* due = gimple_build_cond(GE_EXPR, last, first.load(hot, u64, offsetof(HotPath, next_event)), NULL_TREE,
                                    NULL_TREE);
    first.add(due);
    basic_block head = gimple_bb(due);
    edge armed = split_block(head, due);
    armed->flags = EDGE_FALSE_VALUE;
    armed->probability = rare.invert();
    basic_block holds_event = create_empty_bb(head);
    edge to_event = make_edge(head, holds_event, EDGE_TRUE_VALUE);
    to_event->probability = rare;
    holds_event->count = to_event->count();
    if (current_loops) add_bb_to_loop(holds_event, head->loop_father);
    edge from_event = make_single_succ_edge(holds_event, armed->dest, EDGE_FALLTHRU);
    Probe probe{make_ssa_name(g_filter_type), make_ssa_name(u64)};
    gphi* f = create_phi_node(probe.filter, armed->dest);
    add_phi_arg(f, filter, armed, start);
    add_phi_arg(f, always, from_event, start);
    gphi* k = create_phi_node(probe.mask, armed->dest);
    add_phi_arg(k, mask, armed, start);
    add_phi_arg(k, build_int_cst(u64, 0), from_event, start);

    for (HOST_WIDE_INT j = 1; j <= m; ++j) {
        gcall* call = calls[j - 1];
        const location_t where = gimple_location(call);
        basic_block head = gimple_bb(call);

        // The probe, before the call.
        Emitter p{gsi_for_stmt(call), where};
        tree line = p.value(u64, BIT_AND_EXPR, p.value(u64, NOP_EXPR, gimple_call_arg(call, 0)), line_mask);
        tree hash = p.value(u64, MULT_EXPR, line, build_int_cst(u64, sprof::kFilterHashFactor));
        tree bucket = p.value(sizetype, BIT_AND_EXPR, p.value(u64, RSHIFT_EXPR, hash, build_int_cst(u64, 32)),
                              probe.mask);
        tree cell = p.value(g_filter_type, POINTER_PLUS_EXPR, probe.filter, bucket);
        tree byte = build2(MEM_REF, unsigned_char_type_node, cell, build_int_cst(g_filter_type, 0));
        TREE_THIS_NOTRAP(byte) = 1;  // the bucket is inside the filter
        tree watched = p.load(unsigned_char_type_node, byte);
        gimple* hit = gimple_build_cond(NE_EXPR, watched, build_int_cst(unsigned_char_type_node, 0), NULL_TREE,
                                        NULL_TREE);
        p.add(hit);

        // The slow block: the call, told what it touches, between the count's adjustments.
        edge to_slow = split_block(head, hit);
        basic_block slow = to_slow->dest;
        to_slow->flags = EDGE_TRUE_VALUE;
        to_slow->probability = rare;
        Emitter s{gsi_for_stmt(call), where};
        add_to_count(s, hot, -(m - j + 1));
        gcall* told = told_hook_call(call, hot);
        gimple_stmt_iterator at_call = gsi_for_stmt(call);
        gsi_replace(&at_call, told, false);
        cgraph_update_edges_for_call_stmt(call, gimple_call_fndecl(call), told);
        gimple_stmt_iterator after = gsi_for_stmt(told);
        gsi_next(&after);
        s.gsi = after;
        add_to_count(s, hot, m - j);
        Probe again = j < m ? group_probe(s, hot, s.load(hot, u64, offsetof(HotPath, count)), always) : probe;
        edge slow_out = split_block(slow, last_before(s.gsi, slow));
        basic_block join = slow_out->dest;
        slow->count = to_slow->count();
        edge fast = make_edge(head, join, EDGE_FALSE_VALUE);
        fast->probability = rare.invert();

        // The accesses left probe what the slow block found, or what they had.
        if (j < m) {
            Probe merged{make_ssa_name(g_filter_type), make_ssa_name(u64)};
            gphi* f = create_phi_node(merged.filter, join);
            add_phi_arg(f, probe.filter, fast, where);
            add_phi_arg(f, again.filter, slow_out, where);
            gphi* k = create_phi_node(merged.mask, join);
            add_phi_arg(k, probe.mask, fast, where);
            add_phi_arg(k, again.mask, slow_out, where);
            probe = merged;
        }
    }
}

// The address of the thread's HotPath, computed once on entry to the function.
tree hot_path_address(function* fn) {
    tree hot = make_ssa_name(build_pointer_type(TREE_TYPE(g_hot_decl)));
    pt_solution_set_var(&get_ptr_info(hot)->pt, g_hot_decl);  // it points there and nowhere else
    gimple* g = gimple_build_assign(hot, build_fold_addr_expr(g_hot_decl));
    gsi_insert_on_edge_immediate(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fn)), g);
    return hot;
}

const pass_data kPassData = {
    GIMPLE_PASS,
    "sprof_inline_access",
    OPTGROUP_NONE,
    TV_NONE,
    PROP_ssa | PROP_cfg,
    0,
    0,
    0,
    TODO_update_ssa_only_virtuals,
};

struct InlineAccessPass : gimple_opt_pass {
    explicit InlineAccessPass(gcc::context* ctx) : gimple_opt_pass(kPassData, ctx) {}
    opt_pass* clone() override { return new InlineAccessPass(m_ctxt); }
    bool gate(function*) override { return (flag_sanitize & SANITIZE_THREAD) != 0; }

    unsigned int execute(function* fn) override {
        // The groups, each in program order (nothing changed yet).
        std::vector<std::vector<gcall*>> groups;
        basic_block bb;
        FOR_EACH_BB_FN(bb, fn) {
            bool open = false;
            for (gimple_stmt_iterator i = gsi_start_bb(bb); !gsi_end_p(i); gsi_next(&i)) {
                gimple* g = gsi_stmt(i);
                if (inlined_hook(g) >= 0) {
                    if (!open) groups.emplace_back();
                    groups.back().push_back(as_a<gcall*>(g));
                    open = true;
                } else if (is_gimple_call(g) || gimple_code(g) == GIMPLE_ASM) {
                    open = false;  // it may count accesses itself
                }
            }
        }
        if (groups.empty()) return 0;
        make_trees();
        tree hot = hot_path_address(fn);
        for (const auto& group : groups) inline_group(group, hot);
        free_dominance_info(CDI_DOMINATORS);
        free_dominance_info(CDI_POST_DOMINATORS);
        mark_virtual_operands_for_renaming(fn);
        return TODO_update_ssa_only_virtuals;
    }
};

}  // namespace

int plugin_init(plugin_name_args* info, plugin_gcc_version* version) {
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("%s: built for gcc %s, loaded into gcc %s", info->base_name, gcc_version.basever,
              version->basever);
        return 1;
    }
    register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, nullptr, const_cast<ggc_root_tab*>(g_roots));
    // After every instance of gcc's tsan pass: "tsan" (-O1 and up, -Og), "tsan0" (-O0).
    for (const char* tsan : {"tsan", "tsan0"}) {
        register_pass_info pass{new InlineAccessPass(g), tsan, 0, PASS_POS_INSERT_AFTER};
        register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &pass);
    }
    return 0;
}
