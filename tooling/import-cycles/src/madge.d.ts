/** The part of madge's API the import-cycle test uses (madge ships no types). */
declare module "madge" {
  interface MadgeResult {
    obj(): Record<string, Array<string>>
    circular(): ReadonlyArray<ReadonlyArray<string>>
  }
  interface MadgeConfig {
    readonly fileExtensions?: ReadonlyArray<string>
    readonly tsConfig?: string
    readonly excludeRegExp?: ReadonlyArray<RegExp>
    readonly detectiveOptions?: Record<string, unknown>
  }
  export default function madge(path: string | ReadonlyArray<string>, config?: MadgeConfig): Promise<MadgeResult>
}
