// The figure's look: colours, fonts and sizes (CSS px), from campaign_widget/theme.json — the one
// file the static figure (matplotlib) reads too. THEME is the light look unless useTheme("dark").
import DATA from "../../campaign_widget/theme.json" with { type: "json" };

export const THEME_DATA = DATA;
export const THEME = { ...DATA.theme };

/** Switch THEME to "light" or "dark" (in place: every module holds the same object). */
export function useTheme(name) {
  Object.assign(THEME, DATA.theme, name === "dark" ? DATA.dark : {});
  THEME.name = name === "dark" ? "dark" : "light";
  return THEME;
}
useTheme("light");

export function font(size = THEME.fontSize, weight = "normal") {
  return `${weight} ${size}px ${THEME.fontFamily}`;
}
