namespace Encryption.Custom.Tests.Architecture;

/// <summary>Cycles in a small directed graph of folders (strongly connected components of two or more, Tarjan).</summary>
internal static class FolderGraph
{
    /// <summary>Each set of folders that reach each other (a cycle or several), members sorted.</summary>
    public static List<List<string>> Cycles(IReadOnlyDictionary<string, HashSet<string>> edges)
    {
        Dictionary<string, int> index = new(StringComparer.Ordinal);
        Dictionary<string, int> low = new(StringComparer.Ordinal);
        Stack<string> stack = new();
        HashSet<string> onStack = new(StringComparer.Ordinal);
        List<List<string>> components = [];

        void Visit(string node)
        {
            index[node] = low[node] = index.Count;
            stack.Push(node);
            onStack.Add(node);
            foreach (string next in edges.TryGetValue(node, out HashSet<string>? targets) ? targets : [])
            {
                if (!index.ContainsKey(next))
                {
                    Visit(next);
                    low[node] = Math.Min(low[node], low[next]);
                }
                else if (onStack.Contains(next))
                {
                    low[node] = Math.Min(low[node], index[next]);
                }
            }

            if (low[node] == index[node])
            {
                List<string> component = [];
                string member;
                do
                {
                    member = stack.Pop();
                    onStack.Remove(member);
                    component.Add(member);
                }
                while (member != node);

                if (component.Count > 1)
                {
                    component.Sort(StringComparer.Ordinal);
                    components.Add(component);
                }
            }
        }

        foreach (string node in edges.Keys.Order(StringComparer.Ordinal))
        {
            if (!index.ContainsKey(node))
            {
                Visit(node);
            }
        }

        return components;
    }
}
