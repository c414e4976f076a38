/* test_nodes.c: build/tracecost end to end on the nodes of a job from evidence (issue 28): the
 * device indices over file names that do not fit them (eight worker*_step_* files on devices 0-7
 * are one node, no fabric), tracecost record's names of two hosts agreeing with devices 0-3 twice,
 * names that disagree (a note, and the devices decide), the host names traces record, ROCm agent
 * ids, host names on some inputs only, devices out of rank order (assumed, said), missing ranks (the
 * figures that need their nodes are left out), and the file-name rule. */
#include "testutil.h"
#include "analyzer/nodes.h"

static const char *jstr(yajl_val v) {
    cr_assert(v && YAJL_IS_STRING(v), "expected a string");
    return v->u.string;
}

/* analyze ARGS with --json DIR/NAME.json; the terminal output in *text when text is not NULL. */
static yajl_val analyze(const char *dir, const char *name, const char *args, char **text) {
    char json[600];
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    char *out = NULL;
    int rc = tu_sh(&out, "SOURCE_DATE_EPOCH=1764547200 COLUMNS=200 %s analyze --json %s %s 2>/dev/null", tu_bin(), json, args);
    cr_assert_eq(rc, 0, "analyze %s: exit %d\n%s", args, rc, out);
    if (text) *text = out; else free(out);
    return tu_json_file(json);
}

static void expect_nodes(yajl_val doc, int n_ranks, int per_node) {
    for (int r = 0; r < n_ranks; r++) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", r);
        cr_expect_eq(tu_num(tu_get(doc, "ranks", idx, "node", NULL)), r / per_node, "rank %d", r);
    }
}

/* The job: eight files worker0_step_12.<ms>.pt.trace.json .. worker7_..., ranks 0-7 on
 * devices 0-7 (with µs timestamps, clock offsets and a lost kernel). The names fit HOST_PID, but
 * eight hosts are not what the devices say: one node, no fabric, and a note says why. */
Test(nodes, worker_names_on_devices_0_to_7_are_one_node, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL, args[700];
    tu_gen_job(dir, "w", "--ranks 8 --steps 3 --file-names worker --time-format epoch --clock-offset-us 40 "
                         "--drop-kernel 3:2");
    snprintf(args, sizeof args, "--html %s/w.html %s/w", dir, dir);
    yajl_val doc = analyze(dir, "w", args, &text);
    yajl_val sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "node_rule", NULL)), "device indices");
    cr_assert_eq(tu_num(tu_get(sm, "nodes", NULL)), 1);
    cr_assert_eq(tu_num(tu_get(sm, "gpus_per_node", NULL)), 8);
    cr_assert(YAJL_IS_FALSE(tu_get(sm, "nodes_assumed", NULL)));
    cr_assert(strstr(jstr(tu_get(sm, "nodes_note", NULL)), "the hosts in the file names (8) are not the nodes of the "
                                                             "device indices (1): the file names are not used"));
    expect_nodes(doc, 8, 8);
    cr_assert_eq(tu_num(tu_get(doc, "cost", "inputs", "fabric_cost", "value", NULL)), 0);
    cr_assert_str_eq(jstr(tu_get(doc, "cost", "inputs", "fabric_cost", "source", NULL)), "default (one node: no fabric)");
    cr_assert(strstr(text, "nodes: 1, by the ranks' device indices (8 GPUs per node)"), "%s", text);
    cr_assert(strstr(text, "note: the hosts in the file names (8)"), "%s", text);
    char p[700];
    snprintf(p, sizeof p, "%s/w.html", dir);
    char *html = tu_read_file(p, NULL);
    cr_assert(strstr(html, "<p id=\"nodes\" class=\"figures\">Nodes: 1, by the ranks"), "the HTML says how");
    cr_assert(strstr(html, "<p id=\"nodes-note\" class=\"note\">the hosts in the file names (8)"), "and the note");
    free(html);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* tracecost record's names, HOST_PID.rank<R>.pt.trace.json, of two hosts with devices 0-3 twice:
 * two nodes by the file names, which the device indices agree with; the world group spans both. */
Test(nodes, record_names_of_two_hosts_are_two_nodes, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL, args[700];
    tu_gen_job(dir, "r", "--ranks 8 --steps 3 --gpus-per-node 4 --file-names record --time-format epoch "
                         "--clock-offset-us 30");
    snprintf(args, sizeof args, "%s/r", dir);
    yajl_val doc = analyze(dir, "r", args, &text);
    yajl_val sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "node_rule", NULL)), "file names");
    cr_assert_eq(tu_num(tu_get(sm, "nodes", NULL)), 2);
    cr_assert(YAJL_IS_NULL(tu_get(sm, "nodes_note", NULL)));
    expect_nodes(doc, 8, 4);
    cr_assert_eq(tu_num(tu_get(doc, "cost", "inputs", "fabric_cost", "value", NULL)), 30000);
    cr_assert_str_eq(jstr(tu_get(doc, "process_groups", "#0", "scope", NULL)), "inter-node");
    cr_assert(strstr(text, "nodes: 2, by the hosts in the file names (the device indices agree)"), "%s", text);
    yajl_tree_free(doc);
    free(text);
    /* rank 4's file renamed onto the first host: the names no longer fit the devices */
    tu_sh(NULL, "cd %s/r && for f in node1_*.rank4.pt.trace.json; do mv \"$f\" \"node0_${f#node1_}\"; done", dir);
    doc = analyze(dir, "r2", args, &text);
    sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "node_rule", NULL)), "device indices");
    cr_assert_eq(tu_num(tu_get(sm, "nodes", NULL)), 2);
    cr_assert(strstr(jstr(tu_get(sm, "nodes_note", NULL)), "the hosts in the file names (2) are not the nodes of the "
                                                             "device indices (2)"));
    expect_nodes(doc, 8, 4);
    cr_assert(strstr(text, "nodes: 2, by the ranks' device indices (4 GPUs per node)"), "%s", text);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Host names the traces record come before the file names; a real trace's host_name too. */
Test(nodes, trace_hosts_come_first, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL, args[700];
    tu_gen_job(dir, "h", "--ranks 8 --steps 2 --gpus-per-node 4 --trace-hosts --file-names worker");
    snprintf(args, sizeof args, "%s/h", dir);
    yajl_val doc = analyze(dir, "h", args, &text);
    cr_assert_str_eq(jstr(tu_get(doc, "summary", "node_rule", NULL)), "trace hosts");
    cr_assert_eq(tu_num(tu_get(doc, "summary", "nodes", NULL)), 2);
    expect_nodes(doc, 8, 4);
    cr_assert(strstr(text, "nodes: 2, by the host names the traces record"), "%s", text);
    yajl_tree_free(doc);
    free(text);
    doc = analyze(dir, "ns", "tests/data/ref/ns_resolution.pt.trace.json.gz", NULL);
    cr_assert_str_eq(jstr(tu_get(doc, "summary", "node_rule", NULL)), "trace hosts");
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* ROCm traces number GPUs by HSA agent (2 + local rank): the device indices still give 2 nodes of 4. */
Test(nodes, rocm_agent_ids_count_from_the_lowest, .timeout = 60) {
    char *dir = tu_tmpdir(), args[700];
    tu_gen_job(dir, "a", "--ranks 8 --steps 2 --gpus-per-node 4 --rocm-agent-ids");
    snprintf(args, sizeof args, "%s/a", dir);
    yajl_val doc = analyze(dir, "a", args, NULL);
    cr_assert_str_eq(jstr(tu_get(doc, "summary", "node_rule", NULL)), "device indices");
    cr_assert_eq(tu_num(tu_get(doc, "summary", "nodes", NULL)), 2);
    expect_nodes(doc, 8, 4);
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Ranks 0-7 of a 16-rank job on devices 0-7: their node is known, the others' is not. The node count
 * is assumed (a note), and the world group's nodes and scope, which need the missing ranks' nodes,
 * are left out rather than guessed. */
Test(nodes, missing_ranks_leave_out_what_needs_their_nodes, .timeout = 60) {
    char *dir = tu_tmpdir(), args[700];
    tu_gen_job(dir, "m", "--ranks 16 --steps 2 --gpus-per-node 8");
    tu_sh(NULL, "cd %s/m && rm rank8.* rank9.* rank1[0-5].*", dir);
    snprintf(args, sizeof args, "%s/m", dir);
    yajl_val doc = analyze(dir, "m", args, NULL);
    yajl_val sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "node_rule", NULL)), "device indices");
    cr_assert_eq(tu_num(tu_get(sm, "nodes", NULL)), 2);
    cr_assert(YAJL_IS_TRUE(tu_get(sm, "nodes_assumed", NULL)));
    cr_assert(strstr(jstr(tu_get(sm, "nodes_note", NULL)), "8 GPUs per node assumed for the ranks not among the inputs"));
    expect_nodes(doc, 8, 8);
    cr_assert(YAJL_IS_NULL(tu_get(doc, "process_groups", "#0", "nodes", NULL)));
    cr_assert(YAJL_IS_NULL(tu_get(doc, "process_groups", "#0", "scope", NULL)));
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Host names on only some inputs are not used (a note); the device indices decide. */
Test(nodes, host_names_on_some_inputs_are_not_used, .timeout = 60) {
    char *dir = tu_tmpdir(), args[700];
    tu_gen_job(dir, "p", "--ranks 8 --steps 2 --gpus-per-node 4 --trace-hosts");
    tu_sh(NULL, "sed -i '/\"host_name\"/d' %s/p/rank5.pt.trace.json", dir);
    snprintf(args, sizeof args, "%s/p", dir);
    yajl_val doc = analyze(dir, "p", args, NULL);
    yajl_val sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "node_rule", NULL)), "device indices");
    cr_assert_eq(tu_num(tu_get(sm, "nodes", NULL)), 2);
    cr_assert(strstr(jstr(tu_get(sm, "nodes_note", NULL)), "7 of 8 inputs record a host name, so the host names are not used"));
    expect_nodes(doc, 8, 4);
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Device indices that do not follow the ranks (ranks 1 and 2 swapped: rank 1 on device 2) and no
 * other evidence: 8 GPUs per node assumed, said, and the process groups' scope left out. */
Test(nodes, devices_out_of_rank_order_are_assumed_and_said, .timeout = 60) {
    char *dir = tu_tmpdir(), args[700];
    tu_gen_job(dir, "u", "--ranks 4 --steps 2");
    tu_sh(NULL, "cd %s/u && sed -i 's/\"rank\": 1,/\"rank\": 2,/' rank1.pt.trace.json && "
                "sed -i 's/\"rank\": 2,/\"rank\": 1,/' rank2.pt.trace.json", dir);
    snprintf(args, sizeof args, "%s/u", dir);
    yajl_val doc = analyze(dir, "u", args, NULL);
    yajl_val sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "node_rule", NULL)), "assumed");
    cr_assert(YAJL_IS_TRUE(tu_get(sm, "nodes_assumed", NULL)));
    const char *note = jstr(tu_get(sm, "nodes_note", NULL));
    cr_assert(strstr(note, "the device indices do not follow the ranks"), "%s", note);
    cr_assert(strstr(note, "8 GPUs per node assumed: 1 node"), "%s", note);
    cr_assert(YAJL_IS_NULL(tu_get(doc, "process_groups", "#0", "scope", NULL)));
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* The HOST of a tensorboard_trace_handler name (HOST_PID.<digits>.pt.trace.json[.gz]) or a
 * tracecost record name (HOST_PID[-K].rank<R>.pt.trace.json[.gz]), and what is not one. */
Test(nodes, file_name_host) {
    static const struct { const char *path, *host; } cases[] = {
        {"run/node0_11956.1717171717074.pt.trace.json", "node0"},
        {"node1.cluster_1234.1700000000000.pt.trace.json.gz", "node1.cluster"},
        {"a/b/my_host_77.1.pt.trace.json", "my_host"},
        {"worker3_step_12.1717171717074.pt.trace.json", "worker3_step"}, /* fits: the devices must say */
        {"host_123.rank0.pt.trace.json", "host"},   /* tracecost record's names */
        {"gpu-a_123-2.rank15.pt.trace.json.gz", "gpu-a"},
        {"host_12.pt.trace.json", NULL},            /* record without a rank: one process, no job */
        {"_1234.17.pt.trace.json", NULL},           /* no host */
        {"host_12a.17.pt.trace.json", NULL},        /* pid not decimal */
        {"host_12.17x.pt.trace.json", NULL},
        {"host_12.rankx.pt.trace.json", NULL},
        {"host_12.17.pt.trace.json.bz2", NULL},
        {"rank3.pt.trace.json", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t off = 0, len = 0;
        bool ok = tc_file_name_host(cases[i].path, &off, &len);
        cr_expect_eq(ok, cases[i].host != NULL, "%s", cases[i].path);
        if (ok && cases[i].host)
            cr_expect(len == strlen(cases[i].host) && !strncmp(cases[i].path + off, cases[i].host, len), "%s: host %.*s",
                      cases[i].path, (int)len, cases[i].path + off);
    }
}
