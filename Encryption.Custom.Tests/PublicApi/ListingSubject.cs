namespace Encryption.Custom.Tests.PublicApi;

/// <summary>A public type with one member of each shape the public API listing must render, and some it must hide.</summary>
public abstract class ListingSubject
{
    public const string Kind = "subject";

    internal const string InternalKind = "internal";

    protected ListingSubject(string? name, params int[] values)
    {
        Name = name ?? Kind;
        HiddenValues = values;
    }

    internal ListingSubject()
    {
        Name = InternalKind;
        HiddenValues = [];
    }

    public string Name { get; protected set; }

    public virtual IReadOnlyList<string?>? Tags { get; init; }

    private int[] HiddenValues { get; }

    public void Fill(out int count, in long origin, ref byte[] buffer)
    {
        count = HiddenValues.Length + (int)origin;
        buffer ??= [];
    }

    protected abstract Task<string?> RunAsync<T>(T item, CancellationToken cancel = default)
        where T : class;

    internal void InternalHelper() => HiddenHelper();

    private void HiddenHelper() => Name = Kind;
}
